package action

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
)

// DropItem is one piece of data dropped on an element, by its MIME type
// (text/plain, text/uri-list, text/html, …).
type DropItem struct {
	MIME string `json:"mimeType"`
	Data string `json:"data"`
}

// Drop drops files (paths the browser reads) and data from outside the
// page onto an element, as a person dragging them in from the desktop
// would: trusted dragenter, dragover and drop events at the element's
// centre, carrying the files and data in their dataTransfer.
func Drop(ctx context.Context, t *engine.Surface, ref string, files []string, items []DropItem) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		x, y, err := point(ctx, t, tg, true, true)
		if err != nil {
			return nil, err
		}
		if items == nil {
			items = []DropItem{}
		}
		data := map[string]any{"items": items, "files": files, "dragOperationsMask": 1} // copy
		for i, typ := range []string{"dragEnter", "dragOver", "drop"} {
			err := t.Session().Call(ctx, "Input.dispatchDragEvent", map[string]any{"type": typ, "x": x, "y": y, "data": data}, nil)
			if err != nil {
				if i == 0 {
					return nil, err
				}
				return nil, executedErr(err)
			}
		}
		t.NoteInput(time.Now())
		if w, err := t.World(ctx, t.Root()); err == nil {
			afterInput(ctx, w)
		}
		r := result(t, tg)
		r.X, r.Y = x, y
		return r, nil
	})
}
