package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tackle-dev/tackle/tools/atomicfile"
	"github.com/tackle-dev/tackle/tools/chat"
)

// MaxImageBytes bounds an image the user attaches (@shot.png, --image).
const MaxImageBytes = 5 << 20

// ImageTypes are the image types model APIs take, as sniffed from a
// file's bytes.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// SniffImage returns the image type of data as its bytes say (never a
// file's name), or "" when it is none of ImageTypes.
func SniffImage(data []byte) string {
	t := http.DetectContentType(data)
	if slices.Contains(ImageTypes, t) {
		return t
	}
	return ""
}

// ErrNotImage is wrapped by ReadImage's error for a file whose bytes are
// not an image of ImageTypes.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// ReadImage reads the image file at path for a message (an image the
// user attaches): a regular file of at most MaxImageBytes whose bytes
// are a PNG, JPEG, GIF or WebP image. The image keeps its absolute path
// and digest, so a session can keep the reference instead of the bytes.
func ReadImage(path string) (chat.Image, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return chat.Image{}, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return chat.Image{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return chat.Image{}, err
	}
	if !fi.Mode().IsRegular() {
		return chat.Image{}, fmt.Errorf("%s is not a regular file", path)
	}
	return readImage(f, abs)
}

// readImage reads an open image file whose absolute path is abs.
func readImage(r io.Reader, abs string) (chat.Image, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxImageBytes+1))
	if err != nil {
		return chat.Image{}, err
	}
	if len(data) > MaxImageBytes {
		return chat.Image{}, fmt.Errorf("%s is larger than %d MiB, the most an attached image may be", abs, MaxImageBytes>>20)
	}
	mime := SniffImage(data)
	if mime == "" {
		return chat.Image{}, fmt.Errorf("%s: %w", abs, ErrNotImage)
	}
	sum := sha256.Sum256(data)
	return chat.Image{MIMEType: mime, Data: data, Path: abs, SHA256: hex.EncodeToString(sum[:])}, nil
}

// SaveImage keeps an image that comes without a file of its own (one an
// editor sends in a prompt) in dir, under its digest, and returns it as
// ReadImage reads it from there: a session keeps the reference, not the
// bytes. The same checks hold (at most MaxImageBytes, a PNG, JPEG, GIF or
// WebP image as its bytes say); an image already kept is not written
// again.
func SaveImage(dir string, data []byte) (chat.Image, error) {
	if len(data) > MaxImageBytes {
		return chat.Image{}, fmt.Errorf("the image is larger than %d MiB, the most an attached image may be", MaxImageBytes>>20)
	}
	mime := SniffImage(data)
	if mime == "" {
		return chat.Image{}, ErrNotImage
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	path := filepath.Join(dir, digest+"."+strings.TrimPrefix(mime, "image/"))
	img := chat.Image{MIMEType: mime, Data: data, Path: path, SHA256: digest}
	if kept, err := ReadImage(path); err == nil && kept.SHA256 == digest {
		return img, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return chat.Image{}, err
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return chat.Image{}, err
	}
	return img, nil
}

// ImageSize says an image's type and size in words: "image/png, 12 KiB".
func ImageSize(img chat.Image) string {
	n := len(img.Data)
	if n < 1024 {
		return fmt.Sprintf("%s, %d bytes", img.MIMEType, n)
	}
	return fmt.Sprintf("%s, %.1f KiB", img.MIMEType, float64(n)/1024)
}
