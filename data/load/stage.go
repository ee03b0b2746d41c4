package load

import (
	"bufio"
	"compress/bzip2"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf16"
	"unicode/utf8"
)

// stagedPath is where the locked database reads a user's file: a name in
// the workspace's import folder derived from the source path, so that a
// reload of the same file replaces it.
func stagedPath(importDir, table, source, ext string) string {
	h := sha1.Sum([]byte(source))
	return filepath.Join(importDir, table+"-"+hex.EncodeToString(h[:4])+ext)
}

// link makes the user's file readable at dst without copying when it can
// (a hard link on the same file system) and copies it otherwise.
func link(ctx context.Context, src, dst string) error {
	_ = os.Remove(dst)
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyFile(ctx, src, dst, func(r io.Reader, w io.Writer) (int, error) {
		_, err := io.Copy(w, r)
		return 0, err
	})
}

// copyFile writes dst from src through transform, atomically (a temporary
// file renamed into place), checking ctx between blocks. transform reports
// how many bytes it had to change.
func copyFile(ctx context.Context, src, dst string, transform func(io.Reader, io.Writer) (int, error)) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".staging-*")
	if err != nil {
		return fmt.Errorf("stage %s: %w", filepath.Base(src), err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if _, err := transform(&ctxReader{ctx: ctx, r: in}, w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// fromUTF16 transcodes UTF-16 (with its byte-order mark) to UTF-8.
func fromUTF16(bigEndian bool) func(io.Reader, io.Writer) (int, error) {
	return func(r io.Reader, w io.Writer) (int, error) {
		br := bufio.NewReaderSize(r, 1<<20)
		var pair [2]byte
		var units []uint16
		first := true
		flush := func() error {
			_, err := io.WriteString(w, string(utf16.Decode(units)))
			units = units[:0]
			return err
		}
		for {
			if _, err := io.ReadFull(br, pair[:]); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					return 0, flush()
				}
				return 0, err
			}
			u := uint16(pair[0]) | uint16(pair[1])<<8
			if bigEndian {
				u = uint16(pair[1]) | uint16(pair[0])<<8
			}
			if first {
				first = false
				if u == 0xFEFF {
					continue
				}
			}
			units = append(units, u)
			// Never split a surrogate pair between flushes.
			if len(units) >= 4096 && !utf16.IsSurrogate(rune(u)) {
				if err := flush(); err != nil {
					return 0, err
				}
			}
		}
	}
}

// repairUTF8 copies text, keeping valid UTF-8 and reading every byte that
// is not as Latin-1 (what Excel and older tools write). It returns how many
// bytes it reinterpreted.
func repairUTF8(r io.Reader, w io.Writer) (int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<20)
	fixed := 0
	buf := make([]byte, 0, 4)
	for {
		b, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return fixed, bw.Flush()
			}
			return fixed, err
		}
		if b < utf8.RuneSelf {
			bw.WriteByte(b)
			continue
		}
		buf = append(buf[:0], b)
		for len(buf) < utf8.UTFMax && !utf8.FullRune(buf) {
			nb, err := br.Peek(1)
			if err != nil || utf8.RuneStart(nb[0]) {
				break
			}
			c, _ := br.ReadByte()
			buf = append(buf, c)
		}
		if rn, size := utf8.DecodeRune(buf); rn != utf8.RuneError || size > 1 {
			bw.Write(buf)
			continue
		}
		for _, x := range buf {
			bw.WriteRune(rune(x))
			fixed++
		}
	}
}

// fromBzip2 decompresses bzip2, which DuckDB cannot read itself.
func fromBzip2(r io.Reader, w io.Writer) (int, error) {
	_, err := io.Copy(w, bzip2.NewReader(r))
	return 0, err
}
