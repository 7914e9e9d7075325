// Package secret marks the values that must never reach a log or a
// message by accident: bearer tokens, the text typed into fields, cookie
// values. A String prints as [secret] through log/slog (LogValuer) and
// fmt (Stringer, GoStringer) — alone, in a group, or as a field of a
// struct printed by fmt — and is read only by converting it: string(v).
// JSON carries the value itself: the wire is where it is meant to go; so
// slog's JSON handler, which marshals a struct logged whole, would too —
// a struct that holds one implements LogValue as well (ops.FillIn does).
package secret

import "log/slog"

// Redacted is what a String shows in logs and messages.
const Redacted = "[secret]"

// String is a secret string.
type String string

// LogValue redacts the value for log/slog.
func (String) LogValue() slog.Value { return slog.StringValue(Redacted) }

// String redacts the value for fmt's %v and %s.
func (String) String() string { return Redacted }

// GoString redacts the value for fmt's %#v.
func (String) GoString() string { return Redacted }
