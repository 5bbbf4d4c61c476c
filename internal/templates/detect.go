package templates

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// licenseFingerprint is the set of word trigrams of one shipped license text.
type licenseFingerprint struct {
	id       string // the text's file name, its base SPDX id ("GPL-3.0")
	trigrams map[string]struct{}
}

// licenseIndex holds the fingerprints, built on first use so start-up reads
// no license text.
type licenseIndex struct {
	once  sync.Once
	err   error
	texts []licenseFingerprint
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// trigrams returns the word trigrams of text, normalized: lower case,
// punctuation and spacing ignored, placeholders and copyright lines dropped.
func trigrams(text string) map[string]struct{} {
	var lines []string
	for _, l := range strings.Split(strings.ToLower(text), "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "copyright") || strings.HasPrefix(t, "(c)") {
			continue
		}
		lines = append(lines, l)
	}
	words := strings.Fields(nonWord.ReplaceAllString(strings.Join(lines, " "), " "))
	out := make(map[string]struct{}, len(words))
	for i := 0; i+2 < len(words); i++ {
		out[words[i]+" "+words[i+1]+" "+words[i+2]] = struct{}{}
	}
	return out
}

// minLicenseScore is the similarity (Dice coefficient of word trigrams) a
// file needs with a license text to be taken for that license.
const minLicenseScore = 0.9

// DetectLicense names the shipped license that text is (its base SPDX id, as
// the template's file is named), ok false when none is close enough. Only the
// licenses Cairn ships as templates can be recognized.
func (s *Set) DetectLicense(text []byte) (id string, ok bool, err error) {
	idx := &s.licenseIndex
	idx.once.Do(func() {
		seen := map[string]bool{}
		for _, e := range licenseTable {
			if seen[e.file] {
				continue
			}
			seen[e.file] = true
			b, err := fs.ReadFile(s.fsys, path.Join(licenseDir, e.file))
			if err != nil {
				idx.err = fmt.Errorf("license text %s: %w", e.file, err)
				return
			}
			idx.texts = append(idx.texts, licenseFingerprint{id: e.file, trigrams: trigrams(string(b))})
		}
		sort.Slice(idx.texts, func(i, j int) bool { return idx.texts[i].id < idx.texts[j].id })
	})
	if idx.err != nil {
		return "", false, idx.err
	}
	got := trigrams(string(text))
	if len(got) == 0 {
		return "", false, nil
	}
	best, bestScore := "", 0.0
	for _, t := range idx.texts {
		common := 0
		for g := range got {
			if _, ok := t.trigrams[g]; ok {
				common++
			}
		}
		if score := 2 * float64(common) / float64(len(got)+len(t.trigrams)); score > bestScore {
			best, bestScore = t.id, score
		}
	}
	return best, bestScore >= minLicenseScore, nil
}

// licenseFile matches the names of files that hold a repository's license.
var licenseFile = regexp.MustCompile(`(?i)^(un)?licen[cs]e|^copying`)

// IsLicenseFile reports whether a file at the root of a repository, by its
// name, holds a license ("LICENSE", "LICENSE.md", "LICENSE-MIT", "COPYING"...).
func IsLicenseFile(name string) bool { return licenseFile.MatchString(name) }
