package apitype

// SessionRule says what a session name may be, in the words of an error.
const SessionRule = "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"

// ValidSession reports whether name can name a session (see SessionRule):
// it is always a safe directory name. Every front end checks the name a
// caller gives with it before it sends anything; the daemon checks again.
func ValidSession(name string) bool {
	return validName(name, 1, 64, func(i int, c byte) bool { return alnum(c) || i > 0 && (c == '.' || c == '_' || c == '-') })
}
