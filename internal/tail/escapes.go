package tail

import "bytes"

// AppendStripped appends b without its terminal escape sequences: CSI
// (colours, cursor moves), OSC (titles, links) and two-byte escapes.
func AppendStripped(out, b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0x1b)
		if i < 0 {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		b = b[i+1:]
		switch {
		case len(b) == 0:
		case b[0] == '[': // CSI: parameters and intermediates, then a final byte
			k := 1
			for k < len(b) && b[k] >= 0x20 && b[k] <= 0x3f {
				k++
			}
			if k < len(b) && b[k] >= 0x40 && b[k] <= 0x7e {
				k++
			}
			b = b[k:]
		case b[0] == ']': // OSC: up to BEL or ESC \
			k := 1
			for k < len(b) && b[k] != 0x07 && b[k] != 0x1b {
				k++
			}
			if k < len(b) && b[k] == 0x1b && k+1 < len(b) && b[k+1] == '\\' {
				k++
			}
			if k < len(b) {
				k++
			}
			b = b[k:]
		default:
			b = b[1:]
		}
	}
	return out
}
