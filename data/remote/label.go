package remote

import "strings"

// labelPrefix starts every Label.
const labelPrefix = "connection "

// Label is how a conversation about the connection name, and a dataset
// imported from it, record where their data lives: "connection NAME" (the
// store's workspace field, the catalog's Source). The CLI and the window
// write the same label, so each can pick up what the other made.
func Label(name string) string { return labelPrefix + name }

// LabelName returns the connection a Label names, or "" when label is not
// one (a workspace folder, a file path).
func LabelName(label string) string {
	name, ok := strings.CutPrefix(label, labelPrefix)
	if !ok {
		return ""
	}
	return name
}
