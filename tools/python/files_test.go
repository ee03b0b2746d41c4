package python

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/tools/python/sandbox"
)

// A run's files are kept in a folder of its conversation, which goes with
// the conversation; runs outside one, or with an id unfit for a path, go
// to "_".
func TestRunFilesKeptPerConversation(t *testing.T) {
	ws := t.TempDir()
	tool := &Tool{cfg: Config{FilesDir: FilesRoot(ws)}}
	files := []sandbox.File{{Name: "counts.csv", Size: 4, Data: []byte("a,b\n")}}
	for _, c := range []struct{ chat, folder string }{
		{"chat_1a2b", "chat_1a2b"},
		{"chat_other", "chat_other"},
		{"", "_"},
		{"../../etc", "_"},
		{strings.Repeat("x", 65), "_"},
	} {
		infos, _, err := tool.keepFiles(c.chat, files)
		if err != nil {
			t.Fatal(err)
		}
		if got := filepath.Base(filepath.Dir(filepath.Dir(infos[0].Path))); got != c.folder || !strings.HasPrefix(infos[0].Path, FilesRoot(ws)) {
			t.Errorf("chat %q: kept at %s, want under %s/%s", c.chat, infos[0].Path, FilesRoot(ws), c.folder)
		}
	}
	if err := RemoveChatFiles(ws, "chat_1a2b"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(FilesRoot(ws), "chat_1a2b")); !os.IsNotExist(err) {
		t.Errorf("the conversation's files are still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(FilesRoot(ws), "chat_other")); err != nil {
		t.Errorf("another conversation's files went too: %v", err)
	}
	if err := RemoveChatFiles(ws, "chat_without_files"); err != nil {
		t.Errorf("a conversation without files: %v", err)
	}
}
