package templates

import (
	"strings"
	"testing"
)

// TestDetectLicense: every shipped text, filled in as a new repository gets
// it, is recognized as itself (the -only and -or-later ids share their base
// text); close relatives and other texts are not mistaken for one.
func TestDetectLicense(t *testing.T) {
	s := mustNew(t)
	for _, l := range s.Licenses() {
		text, err := s.RenderLicense(l.ID, "Jane Doe", 2026)
		if err != nil {
			t.Fatal(err)
		}
		want := s.license[l.ID].file
		if got, ok, err := s.DetectLicense(text); err != nil || !ok || got != want {
			t.Errorf("%s: detected %q %v %v, want %s", l.ID, got, ok, err, want)
		}
	}
	bsd3, _ := s.RenderLicense("BSD-3-Clause", "Acme Corp.", 1999)
	if got, ok, _ := s.DetectLicense(bsd3); !ok || got != "BSD-3-Clause" {
		t.Errorf("BSD-3-Clause taken for %s", got)
	}
	// Reformatted (wrapped differently, Markdown heading) still counts.
	mit, _ := s.RenderLicense("MIT", "Someone Else", 2001)
	md := "# License\n\n" + strings.Join(strings.Fields(string(mit)), " ")
	if got, ok, _ := s.DetectLicense([]byte(md)); !ok || got != "MIT" {
		t.Errorf("reformatted MIT: %s %v", got, ok)
	}
	for name, text := range map[string]string{
		"readme":  "# Project\n\nThis project does things. Install it with make install.\n",
		"empty":   "",
		"partial": string(mit[:len(mit)/3]),
	} {
		if got, ok, _ := s.DetectLicense([]byte(text)); ok {
			t.Errorf("%s detected as %s", name, got)
		}
	}
	for name, want := range map[string]bool{"LICENSE": true, "license.md": true, "LICENSE-MIT": true, "COPYING": true,
		"UNLICENSE": true, "Licence.txt": true, "README.md": false, "my-license": false} {
		if IsLicenseFile(name) != want {
			t.Errorf("IsLicenseFile(%q) = %v", name, !want)
		}
	}
}
