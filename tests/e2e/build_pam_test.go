//go:build pam

package e2e

// pamBuilt tells whether the tests run with -tags pam (the cairn binary
// under test is then built with PAM).
const pamBuilt = true

// buildTags are the tags the cairn binary under test is built with.
const buildTags = "pam"
