package filesdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
)

func testEnv(t *testing.T) (Dir, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "files")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	return Dir(dir), dir
}

// TestFilePathNoFollow: names resolve only to regular files inside the
// files directory, never through a symlink, and a refusal never tells
// what exists outside it.
func TestFilePathNoFollow(t *testing.T) {
	e, dir := testEnv(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("x"), 0o600)
	os.WriteFile(filepath.Join(dir, "ok.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(dir, "sub", "deep.txt"), []byte("x"), 0o600)
	os.Symlink(outside, filepath.Join(dir, "link.txt"))
	os.Symlink(filepath.Dir(outside), filepath.Join(dir, "linkdir"))
	os.Symlink("/etc/nonexistent", filepath.Join(dir, "dangling.txt"))

	for _, name := range []string{"ok.txt", "sub/deep.txt", "./sub/../ok.txt"} {
		if p, err := e.Path(name); err != nil || !strings.HasPrefix(p, dir) {
			t.Errorf("FilePath(%q) = %q, %v", name, p, err)
		}
	}
	for name, why := range map[string]string{
		"":                      "relative",
		"/etc/passwd":           "relative",
		"../../etc/passwd":      "outside",
		"link.txt":              "symlink",
		"linkdir/secret.txt":    "symlink",
		"dangling.txt":          "symlink",
		"sub":                   "not a regular file",
		"nope.txt":              "no such file",
		"../../etc/nonexistent": "outside",
	} {
		_, err := e.Path(name)
		ae, ok := apitype.As(err)
		if !ok || ae.Code != apitype.BadInput || !strings.Contains(ae.Message, why) {
			t.Errorf("FilePath(%q) = %v, want BAD_INPUT saying %q", name, err, why)
			continue
		}
		if strings.Contains(ae.Message, outside) || strings.Contains(ae.Message, "lstat") {
			t.Errorf("FilePath(%q) tells what is outside: %s", name, ae.Message)
		}
	}
	// A path that exists outside and one that does not get the same answer.
	_, e1 := e.Path("../../etc/passwd")
	_, e2 := e.Path("../../etc/nonexistent")
	m1 := strings.Replace(e1.Error(), "passwd", "X", 1)
	m2 := strings.Replace(e2.Error(), "nonexistent", "X", 1)
	if m1 != m2 {
		t.Errorf("the refusals differ by what exists:\n%s\n%s", m1, m2)
	}
}

// TestSaveNeverOverwritesOrFollows: a taken name gets a numbered one, a
// planted symlink is never written through, and uploads keep their names
// in a directory of their own.
func TestSaveNeverOverwritesOrFollows(t *testing.T) {
	e, dir := testEnv(t)
	victim := filepath.Join(t.TempDir(), "victim.txt")
	os.WriteFile(victim, []byte("keep"), 0o600)
	os.Symlink(victim, filepath.Join(dir, "shot.png"))
	os.WriteFile(filepath.Join(dir, "a.png"), []byte("old"), 0o600)

	p, err := e.Save("shot.png", []byte("new"))
	if err != nil || p != filepath.Join(dir, "shot (1).png") {
		t.Fatalf("SaveFile over a symlink = %q, %v", p, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("written through the symlink: %q", b)
	}
	if p, _ := e.Save("a.png", []byte("new")); p != filepath.Join(dir, "a (1).png") {
		t.Fatalf("SaveFile of a taken name = %q", p)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.png")); string(b) != "old" {
		t.Fatalf("overwritten: %q", b)
	}
	for _, bad := range []string{"../x", ".hidden", "sub/x", ""} {
		if _, err := e.Save(bad, nil); err == nil {
			t.Errorf("SaveFile(%q) accepted", bad)
		}
	}
	one, err := e.SaveUploads([]File{{Name: "cv.pdf", Data: []byte("1")}})
	if err != nil {
		t.Fatal(err)
	}
	two, err := e.SaveUploads([]File{{Name: "cv.pdf", Data: []byte("2")}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(one[0]) != "cv.pdf" || filepath.Base(two[0]) != "cv.pdf" || one[0] == two[0] {
		t.Fatalf("uploads: %q %q", one, two)
	}
	if b, _ := os.ReadFile(one[0]); string(b) != "1" {
		t.Fatalf("the first upload was overwritten: %q", b)
	}
}

// TestNoWritesThroughALinkedFilesDirectory: a files directory, or its
// uploads, replaced by a symlink gets no file written through it.
func TestNoWritesThroughALinkedFilesDirectory(t *testing.T) {
	elsewhere := t.TempDir()
	for _, linked := range []string{"files", "files/uploads"} {
		t.Run(linked, func(t *testing.T) {
			session := t.TempDir()
			files := filepath.Join(session, "files")
			if linked == "files/uploads" {
				os.Mkdir(files, 0o700)
			}
			if err := os.Symlink(elsewhere, filepath.Join(session, linked)); err != nil {
				t.Fatal(err)
			}
			d := Dir(files)
			if _, err := d.SaveUploads([]File{{Name: "cv.pdf", Data: []byte("x")}}); err == nil {
				t.Error("an upload was saved through a link")
			}
			if linked == "files" {
				if _, err := d.Save("shot.png", []byte("x")); err == nil {
					t.Error("a file was saved through a link")
				}
			}
			if list, _ := os.ReadDir(elsewhere); len(list) != 0 {
				t.Fatalf("written through the link: %v", list)
			}
		})
	}
}

// TestAdopt: a file from outside is linked in under its own name,
// numbered when the name is taken, and nothing there is overwritten.
func TestAdopt(t *testing.T) {
	e, dir := testEnv(t)
	src := filepath.Join(t.TempDir(), "report.txt")
	os.WriteFile(src, []byte("q3"), 0o600)
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "report.txt"), []byte("mine"), 0o600)
	p, err := e.Adopt(src)
	if err != nil || p != filepath.Join(dir, "report (1).txt") {
		t.Fatalf("Adopt = %q, %v", p, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "q3" {
		t.Fatalf("adopted: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "report.txt")); string(b) != "mine" {
		t.Fatalf("overwritten: %q", b)
	}
	if got, err := e.Path("report (1).txt"); err != nil || got != p {
		t.Fatalf("the adopted file by name: %q %v", got, err)
	}
}
