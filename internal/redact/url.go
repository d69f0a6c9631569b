package redact

import "strings"

// URLPassword masks the password of a URL written with credentials,
// scheme://user:password@host/...: the exact rule for a secret inside a
// value (a model path or endpoint of the form https://user:pw@host). The
// rest of the value, user name included, stays as written.
func URLPassword(v string) string {
	start, end, ok := urlPassword(v)
	if !ok {
		return v
	}
	return v[:start] + Mask + v[end:]
}

// urlPassword finds the password of v's userinfo: v[start:end]. ok is
// false when v holds no URL with a non-empty password.
func urlPassword(v string) (start, end int, ok bool) {
	i := strings.Index(v, "://")
	if i <= 0 {
		return 0, 0, false
	}
	authStart := i + 3
	auth := v[authStart:]
	if j := strings.IndexAny(auth, "/?#"); j >= 0 {
		auth = auth[:j]
	}
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return 0, 0, false
	}
	colon := strings.IndexByte(auth[:at], ':')
	if colon < 0 || colon+1 == at {
		return 0, 0, false
	}
	return authStart + colon + 1, authStart + at, true
}

// urlSecret is the password URLPassword masks in v, or "".
func urlSecret(v string) string {
	start, end, ok := urlPassword(v)
	if !ok {
		return ""
	}
	return v[start:end]
}
