package action

import (
	"context"
	"strings"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
)

// terminateWait bounds the wait for the browser to stop a script that
// outran its deadline.
const terminateWait = 2 * time.Second

// evalGroup is the object group of what Eval holds on to while it
// converts a result; it is released before Eval returns.
const evalGroup = "loupe-eval"

// Eval evaluates a JavaScript expression in the page's own world (it sees
// the page's globals) and returns its JSON value; a promise is awaited. A
// script still running at ctx's deadline is terminated, so the tab stays
// usable.
//
// The expression runs once, and its result is converted afterwards (see
// toJSON): a value JSON cannot carry — a symbol, a function, a DOM node,
// the window, a cyclic object, a Map — comes back as a readable stand-in,
// never as an error (CDP's returnByValue refuses them: "Object couldn't
// be returned by value", "Object reference chain is too long").
func Eval(ctx context.Context, t *engine.Surface, expr string) (jsonv2.Value, error) {
	return engine.Exclusively(ctx, t, func() (jsonv2.Value, error) {
		sess, ctxID, err := t.PageContext()
		if err != nil {
			return nil, err
		}
		res, err := cdpproto.Call(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, AwaitPromise: ptr(true), UserGesture: ptr(true), ReplMode: ptr(true),
			ContextID: runtime.ExecutionContextID(ctxID), ObjectGroup: evalGroup,
		})
		if err != nil {
			if ctx.Err() != nil {
				// A script that never yields (while(true){}) holds the
				// page's main thread past the deadline: stop it, or the
				// tab stays wedged for every later call.
				tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminateWait)
				_, _ = cdpproto.Call(tctx, sess, runtime.TerminateExecution, cdpproto.Empty{})
				cancel()
			}
			return nil, err
		}
		defer func() {
			_, _ = cdpproto.Call(context.WithoutCancel(ctx), sess, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: evalGroup})
		}()
		result, ex := res.Result, res.ExceptionDetails
		if ex == nil && result != nil && result.Subtype == "promise" {
			// REPL mode awaits only a top-level await; a promise the
			// expression returns (fetch(…).then(…)) is awaited here.
			awaited, err := cdpproto.Call(ctx, sess, runtime.AwaitPromise, runtime.AwaitPromiseParams{PromiseObjectID: result.ObjectID})
			if err != nil {
				return nil, err
			}
			result, ex = awaited.Result, awaited.ExceptionDetails
		}
		if ex != nil {
			msg := ex.Text
			if ex.Exception != nil && ex.Exception.Description != "" {
				msg = ex.Exception.Description
			}
			return nil, apitype.Errorf(apitype.EvalFailed, "%s", strings.TrimSpace(msg)).Executed()
		}
		return toJSON(ctx, sess, result)
	})
}

// toJSON is an evaluation's result as JSON: primitives as they are (NaN,
// Infinity, -0 and bigints as strings), symbols by their description, and
// objects converted in the page by jsonOf.
func toJSON(ctx context.Context, sess cdpproto.Session, r *runtime.RemoteObject) (jsonv2.Value, error) {
	switch {
	case r == nil || r.Type == "undefined" || r.Subtype == "null":
		return jsonv2.Value("null"), nil
	case r.UnserializableValue != "":
		return jsonv2.Marshal(string(r.UnserializableValue))
	case r.Type == "symbol":
		return jsonv2.Marshal(r.Description)
	case r.ObjectID == "":
		if len(r.Value) == 0 {
			return jsonv2.Value("null"), nil
		}
		return r.Value, nil
	}
	out, err := cdpproto.Call(ctx, sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: jsonOf, ObjectID: r.ObjectID, ReturnByValue: ptr(true), ObjectGroup: evalGroup,
	})
	if err != nil {
		return nil, err
	}
	if out.ExceptionDetails != nil || out.Result == nil || len(out.Result.Value) == 0 {
		// The conversion failed (a page that broke the built-ins it
		// uses): say what the object is.
		return jsonv2.Marshal(r.Description)
	}
	return out.Result.Value, nil
}

// jsonOf converts its receiver to a JSON value in the page: at most
// 100,000 values and 32 levels deep; a cycle, a DOM node, a window, a
// function or a symbol as a short string in brackets; a Map as an object
// of its entries, a Set as an array; toJSON where an object has one (a
// Date); a getter that throws as "[threw]".
const jsonOf = `function () {
  let budget = 100000;
  const cut = (s) => s.length > 200 ? s.slice(0, 200) + '…' : s;
  const walk = (v, stack) => {
    budget -= 1;
    if (budget < 0) return '[truncated]';
    switch (typeof v) {
      case 'undefined': return null;
      case 'bigint': return v.toString() + 'n';
      case 'symbol': return v.toString();
      case 'function': return '[function ' + (v.name || 'anonymous') + ']';
      case 'number': return Object.is(v, -0) ? '-0' : Number.isFinite(v) ? v : String(v);
      case 'string': case 'boolean': return v;
    }
    if (v === null) return null;
    if (stack.includes(v)) return '[circular]';
    if (stack.length >= 32) return '[too deep]';
    if (typeof Window === 'function' && v instanceof Window) return '[window]';
    if (typeof Node === 'function' && v instanceof Node) return '[' + cut(String(v.nodeName).toLowerCase()) + ']';
    if (typeof v.toJSON === 'function') {
      const j = v.toJSON();
      if (j === null || typeof j !== 'object') return walk(j, stack);
      v = j;
    }
    stack.push(v);
    let out;
    if (Array.isArray(v)) out = Array.from(v, (x) => walk(x, stack));
    else if (v instanceof Map) { out = {}; for (const [k, x] of v) out[cut(String(k))] = walk(x, stack); }
    else if (v instanceof Set) out = Array.from(v, (x) => walk(x, stack));
    else {
      out = {};
      for (const k of Object.keys(v)) {
        try { out[k] = walk(v[k], stack); } catch (e) { out[k] = '[threw]'; }
      }
    }
    stack.pop();
    return out;
  };
  return walk(this, []);
}`
