package catalog

// HumanReadableInt reports whether SGLang parses the flag's value with
// human_readable_int, which also takes 128k (decimal) and 4K (binary)
// suffixes (the server_args table's value_type).
func HumanReadableInt(name string) bool {
	f, ok := SGLangArgs().Lookup(name)
	return ok && f.humanInt
}
