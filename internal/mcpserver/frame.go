package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// MaxLine bounds one inbound line of the stdio transport. The largest
// legitimate MCP input is a tool's text argument (browser_fill or
// browser_type text, a browser_eval script): files for browser_upload are
// named in the session's files directory, never sent inline (the CLI's
// file contents are not an MCP field), so a line is small. 16 MiB is far
// above any of those and is the go-sdk's own DefaultMaxLineLength, so no
// input it took is refused; a longer line is answered with a parse error
// rather than buffered without end.
const MaxLine = 16 << 20

// maxDepth is the deepest nesting of objects and arrays a line may have:
// the go-sdk's decoder refuses anything deeper (its internal/json
// checkMaxDepth), so such a line is answered here as a parse error.
const maxDepth = 1000

// maxExactID is the largest integer id the SDK answers with exactly: it
// decodes ids into float64 and replies with int64(id).
const maxExactID = 1 << 53

// frame is what one inbound line becomes: a message for the SDK, an error
// reply to write back (a whole line, newline included), or, when both are
// nil, nothing (a blank line, or a malformed notification or response,
// which JSON-RPC never answers).
type frame struct {
	msg   jsonrpc.Message
	reply []byte
}

// classify checks one line (without its newline) and says what it becomes.
// The SDK's reader ends the whole session on any line it cannot decode,
// so every line it would refuse is answered here instead, as JSON-RPC 2.0
// says: a parse error (id null) for what is not JSON, too deep or too
// long; an invalid request for JSON that is not a request object, with
// the request's id when it has a valid one (string, number or null).
//
// A batch (a JSON array) is an invalid request: MCP removed JSON-RPC
// batching in its 2025-06-18 revision, and the go-sdk in go.mod (v1.8.0)
// takes one only while the negotiated protocol is older, ending the
// session on one after that; loupe refuses them at every version.
func classify(line []byte) frame {
	line = bytes.Trim(line, " \t\r\n")
	switch {
	case len(line) == 0:
		return frame{} // the SDK's decoder skipped blank lines too
	case len(line) > MaxLine:
		return parseError(fmt.Sprintf("line longer than %d bytes", MaxLine))
	case tooDeep(line):
		return parseError(fmt.Sprintf("nested deeper than %d", maxDepth))
	case !json.Valid(line):
		return parseError("not JSON")
	case line[0] == '[':
		return invalid(nil, "a batch: MCP does not take JSON-RPC batches, send one request a line")
	case line[0] != '{':
		return invalid(nil, "not a request object")
	}
	var m map[string]json.RawMessage // exact, case-sensitive keys, as the SDK reads them
	if err := json.Unmarshal(line, &m); err != nil {
		return invalid(nil, "not a request object")
	}
	id, hasID := m["id"]
	var echo json.RawMessage // the id to answer with, when it is a valid one
	if hasID && validID(id) {
		echo = id
	}
	method, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	isString := hasMethod && method[0] == '"'
	switch {
	case isString:
		if problem := checkRequest(m); problem != "" {
			if !hasID {
				return frame{} // a notification: never answered, even when malformed
			}
			return invalid(echo, problem)
		}
	case !hasMethod && (hasResult || hasError):
		// A response to a request of the server's. Answering a malformed
		// one would send its id back into the client's own id space, where
		// it names one of the client's requests: it is dropped.
		if checkResponse(m) != "" {
			return frame{}
		}
	case hasMethod:
		// Not recognisably a notification even without an id: answered,
		// as in the JSON-RPC 2.0 specification's own example.
		return invalid(echo, "method must be a string")
	default:
		return invalid(echo, "not a request: no method")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// Whatever the checks above let through but the SDK still cannot
		// read is refused here too: its reader would end the session.
		if !isString || !hasID {
			return frame{}
		}
		return invalid(echo, "not a valid request object")
	}
	return frame{msg: msg}
}

// checkRequest says what is wrong with a request or notification, or "".
func checkRequest(m map[string]json.RawMessage) string {
	if !version2(m) {
		return `jsonrpc must be "2.0"`
	}
	if id, ok := m["id"]; ok && !exactID(id) {
		return "id must be a string, an integer of at most 2^53, or null"
	}
	// JSON-RPC asks for an object or an array; null is taken as absent,
	// as the SDK always did.
	if p, ok := m["params"]; ok && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return "params must be an object or an array"
	}
	return ""
}

// checkResponse says what is wrong with a response, or "".
func checkResponse(m map[string]json.RawMessage) string {
	id, hasID := m["id"]
	_, hasResult := m["result"]
	errField, hasError := m["error"]
	switch {
	case !version2(m):
		return `jsonrpc must be "2.0"`
	case !hasID || id[0] == 'n' || !exactID(id):
		return "a response needs its request's id"
	case hasResult == hasError:
		return "a response has a result or an error"
	case hasError && errField[0] != '{':
		return "error must be an object"
	}
	return ""
}

// version2 reports whether the message's jsonrpc member is "2.0".
func version2(m map[string]json.RawMessage) bool {
	var v string
	raw, ok := m["jsonrpc"]
	return ok && raw[0] == '"' && json.Unmarshal(raw, &v) == nil && v == "2.0"
}

// validID reports whether a JSON value may be a JSON-RPC id: a string, a
// number or null.
func validID(raw json.RawMessage) bool {
	switch c := raw[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// exactID reports whether the SDK answers a valid id with the same value:
// a string, null, or an integer within ±2^53. Another number (1.5, 1e3, a
// larger integer) would come back as a different one.
func exactID(raw json.RawMessage) bool {
	if !validID(raw) {
		return false
	}
	if raw[0] == '"' || raw[0] == 'n' {
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= -maxExactID && n <= maxExactID
}

// tooDeep reports whether objects and arrays nest deeper than maxDepth,
// skipping what is inside strings.
func tooDeep(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// errorReply is a JSON-RPC 2.0 error response; ID is always present, null
// when the request's id is unknown or not valid.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   replyError      `json:"error"`
}

type replyError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func parseError(why string) frame {
	return frame{reply: errorLine(nil, jsonrpc.CodeParseError, "Parse error: "+why)}
}

func invalid(id json.RawMessage, why string) frame {
	return frame{reply: errorLine(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+why)}
}

// errorLine encodes an error reply as one line. id is a valid id taken
// from the request (or nil for null).
func errorLine(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(errorReply{JSONRPC: "2.0", ID: id, Error: replyError{Code: code, Message: msg}})
	if err != nil {
		// Only an id that is not JSON could fail, and ids come from a
		// line that was checked to be JSON; answer with null all the same.
		b, _ = json.Marshal(errorReply{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: replyError{Code: code, Message: msg}})
	}
	return append(b, '\n')
}
