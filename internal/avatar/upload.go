package avatar

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decoders for uploads
	_ "image/jpeg"
	"image/png"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// Limits bound an uploaded image ([picture] AVATAR_MAX_WIDTH, AVATAR_MAX_HEIGHT,
// AVATAR_MAX_FILE_SIZE).
type Limits struct {
	MaxWidth, MaxHeight int
	MaxFileSize         int64
}

// Size is the side of a stored avatar in pixels (Gitea's 256, rendered at 2x).
const Size = 512

// ErrInvalidImage wraps every reason an upload is refused.
var ErrInvalidImage = errors.New("invalid avatar image")

// Prepare checks an uploaded image (PNG, JPEG, GIF or WebP) against the
// limits, crops it to a centered square and scales it to Size, and returns
// it as PNG.
func Prepare(data []byte, l Limits) ([]byte, error) {
	if int64(len(data)) > l.MaxFileSize {
		return nil, fmt.Errorf("%w: %d bytes is more than the %d allowed", ErrInvalidImage, len(data), l.MaxFileSize)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: not a PNG, JPEG, GIF or WebP image", ErrInvalidImage)
	}
	if cfg.Width > l.MaxWidth || cfg.Height > l.MaxHeight || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("%w: %dx%d is larger than %dx%d", ErrInvalidImage, cfg.Width, cfg.Height, l.MaxWidth, l.MaxHeight)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: the %s image cannot be decoded", ErrInvalidImage, format)
	}
	b := img.Bounds()
	side := min(b.Dx(), b.Dy())
	crop := image.Rect(0, 0, side, side).Add(image.Pt(b.Min.X+(b.Dx()-side)/2, b.Min.Y+(b.Dy()-side)/2))
	dst := image.NewRGBA(image.Rect(0, 0, Size, Size))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, crop, draw.Src, nil)
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Files keeps uploaded avatars as PNG files in one directory.
type Files struct {
	Dir string
}

var fileName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Save stores a prepared avatar of owner (e.g. "user:12", "repo:3") and
// returns its file name.
func (f Files) Save(owner string, png []byte) (string, error) {
	sum := sha256.Sum256(append([]byte(owner+":"), png...))
	name := hex.EncodeToString(sum[:])
	return name, f.SaveAs(name, png)
}

// SaveAs stores a prepared avatar under name (64 hex digits), for callers
// that name an image by its source rather than by its PNG (an avatar from a
// sign-in source, named by the directory's bytes so an unchanged one is
// recognised without decoding it).
func (f Files) SaveAs(name string, png []byte) error {
	if !fileName.MatchString(name) {
		return fmt.Errorf("avatar: invalid file name %q", name)
	}
	if err := os.MkdirAll(f.Dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.Dir, ".upload-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(png); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(f.Dir, name+".png"))
}

// Remove deletes a stored avatar; a missing one is not an error.
func (f Files) Remove(name string) error {
	if !fileName.MatchString(name) {
		return nil
	}
	if err := os.Remove(filepath.Join(f.Dir, name+".png")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Replace stores png (nil: back to the default) as the avatar of owner
// (e.g. "user:3") whose current file is previous, records the new file name
// with set, and then removes the previous file; when set fails the new file
// is removed and the previous one kept.
func (f Files) Replace(owner, previous string, png []byte, set func(name string) error) error {
	name := ""
	if png != nil {
		var err error
		if name, err = f.Save(owner, png); err != nil {
			return err
		}
	}
	if err := set(name); err != nil {
		if name != "" && name != previous {
			_ = f.Remove(name)
		}
		return err
	}
	if previous != "" && previous != name {
		if err := f.Remove(previous); err != nil {
			slog.Warn("avatar: could not remove the previous file", "owner", owner, "err", err)
		}
	}
	return nil
}

// Handler serves GET /avatars/custom/{name}: an uploaded avatar, public like
// every avatar.
func (f Files) Handler(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !fileName.MatchString(name) {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	// The name changes with the content: cache for long.
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	http.ServeFile(w, r, filepath.Join(f.Dir, name+".png"))
}
