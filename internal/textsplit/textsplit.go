// Package textsplit splits lists whose items may hold bracketed lists of
// their own: C parameter lists ("int a, void (*f)(int, int)") for the
// wrapper generator, Slurm node lists ("n[1-3,7],x2") for the launcher.
package textsplit

// SplitOutside splits s at the commas that lie outside every pair of open
// and close brackets. The parts keep their spaces; an empty s gives one
// empty part.
func SplitOutside(s string, open, close rune) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case open:
			depth++
		case close:
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
