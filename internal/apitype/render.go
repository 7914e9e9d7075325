package apitype

import (
	"regexp"
	"strconv"
)

// Step is one call that recovers from an error, in no front end's terms:
// an operation of the registry ("switch", "snapshot", "wait") and its
// input fields by wire name. Each front end renders it as its own command
// or tool call: the CLI as `loupe switch s3`, MCP as
// browser_switch_surface {"id":"s3"}.
type Step struct {
	Op   string            `json:"op"`
	Args map[string]string `json:"args,omitempty"`
}

// Renderer writes recovery advice in one front end's terms.
type Renderer interface {
	// Step is a call the caller can make.
	Step(s Step) string
	// Field is an input field of op, by wire name ("max_chars"): a CLI
	// flag or positional, an MCP argument.
	Field(op, name string) string
	// Timeout advises a longer deadline than the one that ran out (ms;
	// 0 when unknown).
	Timeout(op string, ms int64) string
	// Help points at the description of op's arguments.
	Help(op string) string
}

// markup in messages and hints: {field:NAME}, {N} (a recovery step),
// {timeout}, {help}.
var markup = regexp.MustCompile(`\{(field:[a-z_]+|[1-9]|timeout|help)\}`)

// Render returns a copy of e whose message and hint are in r's terms. A
// message may name fields ({field:NAME}); only the hint, which loupe
// writes from its own ids, renders steps, so text a page put into a
// message can never make loupe advise a call.
func (e *Error) Render(r Renderer) *Error {
	c := *e
	c.Message = render(e.Message, e, r, false)
	c.Hint = render(e.Hint, e, r, true)
	return &c
}

func render(s string, e *Error, r Renderer, hint bool) string {
	return markup.ReplaceAllStringFunc(s, func(m string) string {
		key := m[1 : len(m)-1]
		switch {
		case !hint && key[0] != 'f':
			return m
		case key == "timeout":
			return r.Timeout(e.Op, e.TimeoutMS)
		case key == "help":
			return r.Help(e.Op)
		case len(key) > 6 && key[:6] == "field:":
			return r.Field(e.Op, key[6:])
		}
		i, _ := strconv.Atoi(key)
		if i < 1 || i > len(e.Recovery) {
			return m
		}
		return r.Step(e.Recovery[i-1])
	})
}

// Field marks an input field by wire name in a message, for Render.
func Field(name string) string { return "{field:" + name + "}" }
