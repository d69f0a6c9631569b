package verify

import (
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// APIKey is the one rule for the bearer token a request to a located
// server carries (verify's reading, diff's deployment operands, bench
// --url): the server's own --api-key when its command line can be read
// (what it enforces), else the expected plan's (a profile's; a record's
// is redacted; exp may be nil), else the one given from outside
// (t.APIKey: OPENAI_API_KEY).
func APIKey(l *Located, exp *Expected, t Target) string {
	if l.ServerPID > 0 {
		if argv, err := proc.Cmdline(l.ServerPID); err == nil {
			if k := argvAPIKey(argv); k != "" {
				return k
			}
		}
	}
	if exp != nil && !exp.Redacted {
		if k := argvAPIKey(exp.Argv); k != "" {
			return k
		}
	}
	return t.APIKey
}

// argvAPIKey is the --api-key an SGLang command line (or a plan's argv)
// gives, "" when none or when it is masked.
func argvAPIKey(argv []string) string {
	key := ""
	if v := plan.FlagMap(plan.ArgvTail(argv), true)["--api-key"]; len(v) > 0 {
		key = v[len(v)-1]
	}
	if key == redact.Mask {
		return ""
	}
	return key
}
