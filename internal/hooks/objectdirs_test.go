package hooks

import (
	"os"
	"path/filepath"
	"testing"
)

func TestObjectDirsFromEnv(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"GIT_OBJECT_DIRECTORY":             "/repo.git/objects/tmp_objdir-incoming-1",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES": "/repo.git/objects" + string(filepath.ListSeparator) + "objects",
		"GIT_QUARANTINE_PATH":              "/repo.git/objects/tmp_objdir-incoming-1",
	}
	d := objectDirsFromEnv(func(k string) string { return env[k] })
	want := ObjectDirs{ObjectDirectory: "/repo.git/objects/tmp_objdir-incoming-1",
		Alternates:     "/repo.git/objects" + string(filepath.ListSeparator) + filepath.Join(wd, "objects"),
		QuarantinePath: "/repo.git/objects/tmp_objdir-incoming-1"}
	if d != want {
		t.Fatalf("ObjectDirs = %+v, want %+v", d, want)
	}
	if d := objectDirsFromEnv(func(string) string { return "" }); d != (ObjectDirs{}) {
		t.Fatalf("outside a push: %+v", d)
	}
}
