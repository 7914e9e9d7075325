package procid

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// exited runs a process to its end and names it: it is named before it
// is waited for (running or a zombie, its pid is still its own).
func exited(t *testing.T) ID {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSelf(t *testing.T) {
	me, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if me.PID != os.Getpid() || me.Start == 0 || me.Boot == "" || me.Boot != Boot() {
		t.Fatalf("Self: %+v (boot %q)", me, Boot())
	}
	st, err := ReadStat(me.PID)
	if err != nil || st.Start != me.Start || st.Exited() || st.Group == 0 {
		t.Fatalf("ReadStat of this process: %+v, %v", st, err)
	}
}

// Gone decides on records naming real processes: this one (running), one
// that has exited and been waited for, and made-up ones.
func TestGone(t *testing.T) {
	me, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	dead := exited(t)
	for _, c := range []struct {
		name string
		id   ID
		gone bool
	}{
		{"this process", me, false},
		{"this process, boot not recorded", ID{PID: me.PID, Start: me.Start}, false},
		{"pid reused (another start)", ID{PID: me.PID, Start: me.Start + 1, Boot: me.Boot}, true},
		{"start not recorded", ID{PID: me.PID, Boot: me.Boot}, true},
		{"exited", dead, true},
		{"another boot", ID{PID: me.PID, Start: me.Start, Boot: "another"}, true},
		{"pid 0", ID{Boot: me.Boot}, true},
		{"negative pid", ID{PID: -1, Boot: me.Boot}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.id.Gone(); got != c.gone {
				t.Errorf("Gone(%+v) = %v, want %v", c.id, got, c.gone)
			}
		})
	}
	if (ID{PID: me.PID, Boot: "another"}).OtherBoot() != true || me.OtherBoot() || (ID{PID: me.PID}).OtherBoot() {
		t.Error("OtherBoot: only a recorded boot that differs from this one is another")
	}
}

// A zombie has exited: it is gone before its parent waits for it.
func TestZombieIsGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	id, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// Wait for its exit without reaping it (WNOWAIT): it stays a zombie
	// until the deferred Wait.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := ReadStat(id.PID); err != nil || !st.Exited() {
		t.Fatalf("the child after its exit: %+v, %v", st, err)
	}
	if !id.Gone() {
		t.Fatalf("a zombie (%+v) is not gone", id)
	}
}

// TestImportsNothingOfLoupe: procid is a leaf that chromium and sessions
// share; it must not reach back into loupe.
func TestImportsNothingOfLoupe(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: package procid may use the standard library only", f, p)
			}
		}
	}
}
