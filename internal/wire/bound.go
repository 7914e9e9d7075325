package wire

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/internal/safetext"
)

// Every string a page controls — a title, a URL, a name, a value, a
// console message — is bounded in every output, whatever the page made it:
// a page with a 1,000,000-character title must not turn one tool call into
// half a million tokens. Each string field of an output type says, in its
// `cap` tag, which bound it has:
//
//	cap:"title"  titles, names, labels             300 characters
//	cap:"url"    addresses                          2,048
//	cap:"value"  a field's value echoed back        200 (fill does not
//	                                                echo a long value)
//	cap:"text"   messages, matched or read text     4,000
//	cap:"page"   content read on purpose (text, html) 200,000
//	             (a snapshot's text is not cut here: its budget,
//	             max_chars, bounds it, and the renderer each string in it)
//	cap:"-"      loupe's own (ids, codes, states)   none
//
// Bound applies them; a test keeps every string field of every output
// tagged. A cut string ends with "…[+N chars]", N the characters left out.
//
// Bound also makes each of those strings safe to print (package safetext):
// terminal controls, bidi overrides and line separators are escaped
// visibly, and every bound but "page" keeps the string on one line (\n),
// so that a page's text can neither act on a terminal nor forge a line of
// loupe's output, nor a ref ("[ref=" prints "[ref\=", as in snapshots).
// What is read on purpose ("page": a field's value, a document's text)
// keeps its lines; its controls are escaped all the same.
var caps = map[string]int{"title": 300, "url": 2048, "value": 200, "text": 4000, "page": 200_000}

// Cut bounds s to n characters (runes), marking the cut.
func Cut(s string, n int) string {
	if n <= 0 || len(s) <= n { // len counts bytes: a string this short is short
		return s
	}
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	i, k := 0, 0
	for k < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + "…[+" + strconv.Itoa(total-n) + " chars]"
}

// Bound cuts, in place, every page-controlled string reachable from v (a
// pointer to an output) by its field's cap tag. Values of `any` fields
// (ActOut.Value) are bounded as their tag says, strings or lists of them.
func Bound(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return
	}
	bound(rv.Elem(), 0)
}

func bound(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			bound(v.Elem(), n)
		}
	case reflect.Interface:
		if v.IsNil() || n == 0 {
			return
		}
		inner := v.Elem()
		switch inner.Kind() {
		case reflect.String:
			if s := inner.String(); s != "" {
				if b := bounded(s, n); b != s {
					v.Set(reflect.ValueOf(b))
				}
			}
		case reflect.Slice:
			if inner.Type().Elem().Kind() == reflect.String {
				cp := reflect.MakeSlice(inner.Type(), inner.Len(), inner.Len())
				reflect.Copy(cp, inner)
				bound(cp, n)
				v.Set(cp)
			}
		}
	case reflect.String:
		if n > 0 && v.CanSet() && v.Len() > 0 {
			s := v.String()
			if b := bounded(s, n); b != s {
				v.SetString(b)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			bound(v.Index(i), n)
		}
	case reflect.Map:
		if v.Type().Elem().Kind() == reflect.String && n > 0 {
			for _, k := range v.MapKeys() {
				if s := v.MapIndex(k).String(); s != "" {
					if b := bounded(s, n); b != s {
						v.SetMapIndex(k, reflect.ValueOf(b))
					}
				}
			}
		}
	case reflect.Struct:
		for _, f := range planOf(v.Type()) {
			bound(v.Field(f.index), f.cap)
		}
	}
}

// bounded is s cut to n characters and made safe to print: on one line,
// but for what is read on purpose (cap "page").
func bounded(s string, n int) string {
	s = Cut(s, n)
	if n == caps["page"] {
		return safetext.Escape(s)
	}
	return safetext.NoRefs(safetext.Line(s))
}

// fieldPlan is a struct field Bound must visit and its bound.
type fieldPlan struct {
	index, cap int
}

// plans caches, per struct type, the fields that may hold a string to
// bound (directly or below): reading tags for every element of a large
// snapshot's ref table cost 4 ms a call.
var plans sync.Map // reflect.Type → []fieldPlan

func planOf(t reflect.Type) []fieldPlan {
	if p, ok := plans.Load(t); ok {
		return p.([]fieldPlan)
	}
	var p []fieldPlan
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || !mayHoldStrings(f.Type, map[reflect.Type]bool{}) {
			continue
		}
		c := caps[f.Tag.Get("cap")]
		if c == 0 && f.Type.Kind() == reflect.String {
			continue // loupe's own
		}
		p = append(p, fieldPlan{index: i, cap: c})
	}
	plans.Store(t, p)
	return p
}

// mayHoldStrings reports whether a value of type t can hold a string.
func mayHoldStrings(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return mayHoldStrings(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return false
		}
		seen[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && mayHoldStrings(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// untagged lists the string fields reachable from t that carry no cap
// tag, for the test that keeps every one of them bounded or marked as
// loupe's own.
func untagged(t reflect.Type, path string, seen map[reflect.Type]bool, out *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array || ft.Kind() == reflect.Map {
			ft = ft.Elem()
		}
		tag, tagged := f.Tag.Lookup("cap")
		switch {
		case ft.Kind() == reflect.String || ft.Kind() == reflect.Interface:
			if !tagged || tag != "-" && caps[tag] == 0 {
				*out = append(*out, fmt.Sprintf("%s%s.%s", path, t.Name(), f.Name))
			}
		case ft.Kind() == reflect.Struct:
			untagged(ft, path, seen, out)
		}
	}
}
