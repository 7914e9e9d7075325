// Command demo shows loupe end to end, as a user would drive it: it serves
// a small page on loopback, then runs the loupe CLI to open it, print a
// snapshot, fill a field and click a button by ref, and print the result.
// It uses a throw-away LOUPE_HOME and stops its daemon when done.
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

//go:embed page.html
var page []byte

func main() {
	bin := flag.String("loupe", "bin/loupe", "path to the loupe binary")
	flag.Parse()
	if err := run(*bin); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(bin string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	home, err := os.MkdirTemp("", "loupe-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	loupe := func(args ...string) (string, error) {
		fmt.Printf("$ loupe %s\n", strings.Join(quote(args), " "))
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "LOUPE_HOME="+home)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		fmt.Print(string(out))
		if err != nil {
			return "", fmt.Errorf("loupe %s: %w", args[0], err)
		}
		return string(out), nil
	}
	defer loupe("daemon", "stop")

	url := "http://" + ln.Addr().String() + "/"
	if _, err := loupe("open", url); err != nil {
		return err
	}
	snap, err := loupe("snapshot")
	if err != nil {
		return err
	}
	name, err := refOf(snap, "textbox", "Name")
	if err != nil {
		return err
	}
	weekly, err := refOf(snap, "checkbox", "Weekly digest")
	if err != nil {
		return err
	}
	signup, err := refOf(snap, "button", "Sign up")
	if err != nil {
		return err
	}
	steps := [][]string{
		{"fill", "@" + name, "Ada Lovelace"},
		{"check", "@" + weekly},
		{"click", "@" + signup},
		{"wait", "--text", "Welcome"},
		{"snapshot"},
	}
	for _, s := range steps {
		if _, err := loupe(s...); err != nil {
			return err
		}
	}
	out, err := loupe("eval", "document.getElementById('out').textContent")
	if err != nil {
		return err
	}
	if !strings.Contains(out, "Welcome, Ada Lovelace! (weekly)") {
		return fmt.Errorf("unexpected result %q", out)
	}
	fmt.Println("\ndemo ok: the page saw trusted input and produced the expected result")
	return nil
}

func refOf(snap, role, name string) (string, error) {
	re := regexp.MustCompile(`- ` + role + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(e\d+)\]`)
	m := re.FindStringSubmatch(snap)
	if m == nil {
		return "", fmt.Errorf("no %s %q with a ref in the snapshot", role, name)
	}
	return m[1], nil
}

// quote writes arguments as a shell would need them, for the printed
// command lines.
func quote(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case !strings.ContainsAny(a, " '\"$`\\"):
		case !strings.Contains(a, "'"):
			a = "'" + a + "'"
		default:
			a = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(a) + `"`
		}
		out[i] = a
	}
	return out
}
