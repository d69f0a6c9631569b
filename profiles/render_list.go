package profiles

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteList prints a List as a table: each profile's name, where it was
// found, and its description, or why it does not parse, or which source
// shadows it.
func WriteList(w io.Writer, list []Listing) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
	for _, l := range list {
		desc := l.Description
		switch {
		case l.Err != "":
			desc = "ERROR: " + l.Err
		case l.ShadowedBy != "":
			desc = "(shadowed by " + l.ShadowedBy + ") " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, l.Source, desc)
	}
	return tw.Flush()
}
