package ledger

// IDMarks are a session's id marks: the last surface and ref numbers it
// may have handed out. The next daemon starts its numbering past them.
type IDMarks struct {
	Surfaces int64
	Refs     int64
}
