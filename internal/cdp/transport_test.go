package cdp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// pipes returns a PipeTransport and the browser's ends of its two pipes:
// cmds is what the transport writes, events where the browser writes.
func pipes(t *testing.T) (p *PipeTransport, cmds *os.File, events *os.File) {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmdR.Close(); evW.Close() })
	p = NewPipeTransport(cmdW, evR)
	t.Cleanup(func() { _ = p.Close() })
	return p, cmdR, evW
}

func TestPipeTransportFraming(t *testing.T) {
	p, cmds, events := pipes(t)
	if err := p.Write(context.Background(), []byte(`{"id":1}`)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := cmds.Read(buf)
	if err != nil || string(buf[:n]) != "{\"id\":1}\x00" {
		t.Errorf("wire = %q, %v; want the message and a NUL", buf[:n], err)
	}

	if err := p.Write(context.Background(), []byte("a\x00b")); err == nil {
		t.Error("a message with a NUL byte was written")
	}

	// Two messages in one write, then one split across writes.
	if _, err := events.Write([]byte("{\"a\":1}\x00{\"b\":2}\x00{\"c\"")); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = events.Write([]byte(":3}\x00")) }()
	for _, want := range []string{`{"a":1}`, `{"b":2}`, `{"c":3}`} {
		got, err := p.Read()
		if err != nil || string(got) != want {
			t.Errorf("Read = %q, %v; want %q", got, err, want)
		}
	}

	// A message larger than the read buffer arrives whole.
	big := bytes.Repeat([]byte("x"), 3<<20)
	go func() { _, _ = events.Write(append(append([]byte(nil), big...), 0)) }()
	got, err := p.Read()
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("large message: %d bytes, %v", len(got), err)
	}
}

// Read reports EOF when the browser closes its end, and when the
// transport is closed under a pending Read.
func TestPipeTransportEOF(t *testing.T) {
	p, _, events := pipes(t)
	events.Close()
	if _, err := p.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("Read after the browser closed = %v, want EOF", err)
	}

	p2, _, _ := pipes(t)
	done := make(chan error, 1)
	go func() {
		_, err := p2.Read()
		done <- err
	}()
	if err := p2.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close = %v, want EOF", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Close did not unblock Read")
	}
}

// A browser that stops reading cannot block a write past its context.
func TestPipeTransportWriteHonoursContext(t *testing.T) {
	p, _, _ := pipes(t) // nobody reads cmds
	chunk := bytes.Repeat([]byte("y"), 1<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var err error
	for range 64 { // far more than any pipe buffer
		if err = p.Write(ctx, chunk); err != nil {
			break
		}
	}
	// The write fails at the deadline; the error is the context's or the
	// pipe's own deadline error, whichever fired first.
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("write to a stalled pipe = %v, want a deadline error", err)
	}

	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := p.Write(cancelled, chunk); !errors.Is(err, context.Canceled) {
		t.Errorf("write with a cancelled context to a full pipe = %v, want Canceled", err)
	}
}

// A Conn over a real pipe: one round trip.
func TestConnOverPipe(t *testing.T) {
	p, cmds, events := pipes(t)
	c := NewConn(p)
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		var v struct {
			Product string `json:"product"`
		}
		err := c.Browser().Call(context.Background(), "Browser.getVersion", nil, &v)
		if err == nil && v.Product != "Chrome" {
			err = errors.New("product " + v.Product)
		}
		done <- err
	}()
	buf := make([]byte, 256)
	n, err := cmds.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(buf[:n], []byte{0}) || !bytes.Contains(buf[:n], []byte(`"id":1`)) {
		t.Fatalf("command = %q", buf[:n])
	}
	if _, err := events.Write([]byte("{\"id\":1,\"result\":{\"product\":\"Chrome\"}}\x00")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("no reply")
	}
}
