package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineTransport serves MCP as newline-delimited JSON-RPC, as
// mcp.StdioTransport does, but survives malformed input: the SDK's own
// reader ends the session (and loupe mcp with it) on the first line it
// cannot decode. Here each line is checked first (classify): a valid
// message goes to the SDK, a malformed request is answered with the
// JSON-RPC error it deserves, a malformed notification is dropped, and the
// next line is read either way.
type LineTransport struct {
	In  io.ReadCloser
	Out io.Writer
	// MaxLine bounds a line (0: MaxLine).
	MaxLine int
}

// StdioTransport is a LineTransport on this process's stdin and stdout.
func StdioTransport() *LineTransport {
	return &LineTransport{In: os.Stdin, Out: os.Stdout}
}

// Connect starts the connection's reader. It stops when the input ends or
// fails, or when the connection is closed (closing In unblocks its read;
// a read of a terminal or pipe that Close cannot interrupt ends with the
// process, as with the SDK's own stdio transport).
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = MaxLine
	}
	c := &lineConn{in: t.In, out: t.Out, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.read(max)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is an mcp.Connection over lines. Every line written, the SDK's
// messages and this transport's own error replies alike, is written whole
// under mu, so replies never interleave mid-line.
type lineConn struct {
	in  io.ReadCloser
	out io.Writer
	mu  sync.Mutex // serialises writes to out

	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// read frames lines and passes each one's verdict on until the input ends
// or the connection closes.
func (c *lineConn) read(max int) {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, max)
		if err != nil {
			c.deliver(readResult{err: err})
			return
		}
		f := frame{}
		if tooLong {
			f = parseError(fmt.Sprintf("line longer than %d bytes", max))
		} else {
			f = classify(line)
		}
		switch {
		case f.msg != nil:
			if !c.deliver(readResult{msg: f.msg}) {
				return
			}
		case f.reply != nil:
			if err := c.writeLine(f.reply); err != nil {
				c.deliver(readResult{err: err})
				return
			}
		}
	}
}

// deliver hands a read to Read, or reports false once the connection is
// closed.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads the next line of r without its newline. A line longer
// than max bytes is read to its end but not kept: tooLong reports it, and
// at most max bytes of it are ever held. A last line without a newline
// counts; err is io.EOF once the input is done.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	size := 0
	for {
		chunk, err := r.ReadSlice('\n')
		end := err == nil
		if end {
			chunk = chunk[:len(chunk)-1]
		}
		size += len(chunk)
		if size > max {
			tooLong, line = true, nil
		} else {
			line = append(line, chunk...)
		}
		switch {
		case end:
			return line, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && size > 0:
			return line, tooLong, nil
		default:
			return nil, false, err
		}
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcpserver: encoding a message: %w", err)
	}
	return c.writeLine(append(b, '\n'))
}

// writeLine writes one whole line (newline included) in a single write.
func (c *lineConn) writeLine(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.out.Write(b)
	return err
}

// Close stops the reader: closing In unblocks a read in progress.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = c.in.Close()
	})
	return c.closeErr
}

func (c *lineConn) SessionID() string { return "" }
