package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// input is a struct that holds a secret, as an operation's input does.
type input struct {
	Ref  string `json:"ref"`
	Text String `json:"text"`
}

// LogValue logs the input with its secret redacted (slog's JSON handler
// would marshal the struct whole).
func (in input) LogValue() slog.Value {
	return slog.GroupValue(slog.String("ref", in.Ref), slog.Any("text", in.Text))
}

// TestNeverLogged: a secret logged alone, as a field of a struct or a
// group, or formatted by fmt shows as [secret]; JSON and a conversion
// keep the value.
func TestNeverLogged(t *testing.T) {
	const value = "hunter2-token-value"
	s := String(value)
	in := input{Ref: "e3", Text: s}
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		l := slog.New(h)
		l.Info("typed", "text", s)
		l.Info("typed", "input", in, "ptr", &in)
		l.Info("typed", slog.Group("call", slog.Any("text", s)))
	}
	out := buf.String() + fmt.Sprintf("%v %+v %#v %s", in, in, in, s)
	if strings.Contains(out, value) || !strings.Contains(out, Redacted) {
		t.Fatalf("the secret reached the output:\n%s", out)
	}
	b, _ := json.Marshal(in)
	if !strings.Contains(string(b), value) || string(s) != value {
		t.Fatalf("JSON or a conversion lost the value: %s", b)
	}
}
