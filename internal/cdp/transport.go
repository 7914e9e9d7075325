package cdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Transport moves whole protocol messages. Read is called by one goroutine
// only; Write may be called concurrently and must be safe for that. Close
// unblocks a pending Read.
type Transport interface {
	Read() ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// maxMessage bounds one message in either direction. Chromium itself fails
// somewhere above 200 MiB (silently dropped replies, stalled reads), so a
// larger message is an error here rather than a hang there.
const maxMessage = 256 << 20

// ErrMessageTooLarge is returned for a command larger than Chromium reads
// reliably.
var ErrMessageTooLarge = errors.New("cdp: message larger than 256 MiB")

// PipeTransport speaks the --remote-debugging-pipe framing: NUL-terminated
// JSON, commands written to the browser's fd 3, replies read from its fd 4.
type PipeTransport struct {
	in  *bufio.Reader // replies and events from the browser
	inF *os.File
	out *os.File // commands to the browser

	wmu sync.Mutex // serialises writes so messages never interleave
}

// NewPipeTransport wraps the two pipe ends loupe keeps after starting the
// browser: out is the write end of the browser's fd 3, in the read end of
// its fd 4.
func NewPipeTransport(out, in *os.File) *PipeTransport {
	return &PipeTransport{in: bufio.NewReaderSize(in, 1<<20), inF: in, out: out}
}

// Read returns the next message without its terminating NUL.
func (p *PipeTransport) Read() ([]byte, error) {
	b, err := p.in.ReadBytes(0)
	if err != nil {
		if errors.Is(err, os.ErrClosed) {
			err = io.EOF
		}
		return nil, err
	}
	return b[:len(b)-1], nil
}

// Write sends one message. The context's deadline bounds the write too,
// because a browser that stops reading would otherwise block it forever.
func (p *PipeTransport) Write(ctx context.Context, msg []byte) error {
	if len(msg) > maxMessage {
		return ErrMessageTooLarge
	}
	if bytes.IndexByte(msg, 0) >= 0 {
		return errors.New("cdp: message contains a NUL byte")
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		_ = p.out.SetWriteDeadline(dl)
	} else {
		_ = p.out.SetWriteDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { _ = p.out.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := p.out.Write(append(msg, 0)); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("cdp: pipe write: %w", ctx.Err())
		}
		// The write deadline is the context's own and may fire a moment
		// before the context reports it.
		if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
			return fmt.Errorf("cdp: pipe write: %w", context.DeadlineExceeded)
		}
		return fmt.Errorf("cdp: pipe write: %w", err)
	}
	return nil
}

// Close closes both pipe ends; a launched browser exits when it sees that.
func (p *PipeTransport) Close() error {
	return errors.Join(p.out.Close(), p.inF.Close())
}

// WSTransport is a websocket connection to a browser's DevTools endpoint.
type WSTransport struct {
	c *websocket.Conn
}

// DialWebsocket connects to a ws:// DevTools URL. The read limit is raised
// from the library's 32 KiB default, which otherwise closes the connection
// on the first large snapshot.
func DialWebsocket(ctx context.Context, url string) (*WSTransport, error) {
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, fmt.Errorf("cdp: dial %s: %w", url, err)
	}
	c.SetReadLimit(maxMessage)
	return &WSTransport{c: c}, nil
}

// Read returns the next text message.
func (w *WSTransport) Read() ([]byte, error) {
	_, b, err := w.c.Read(context.Background())
	if err != nil {
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			return nil, io.EOF
		}
		return nil, err
	}
	return b, nil
}

// Write sends one text message; the library serialises concurrent writers.
func (w *WSTransport) Write(ctx context.Context, msg []byte) error {
	if len(msg) > maxMessage {
		return ErrMessageTooLarge
	}
	return w.c.Write(ctx, websocket.MessageText, msg)
}

// Close ends the connection without waiting for the peer's close frame.
func (w *WSTransport) Close() error {
	return w.c.CloseNow()
}
