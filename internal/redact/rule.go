package redact

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/sglaunch/sglaunch/catalog"
)

// SecretFlags are the SGLang flags whose value is a credential, by
// canonical name. Every other flag of the catalog is a setting and is
// shown as it is: --ssl-keyfile and --ssl-certfile name files (the file is
// the secret, not its path), and --max-total-tokens or --tokenizer-path
// merely hold "key" or "token" in their names.
var SecretFlags = []string{"--api-key", "--admin-api-key", "--ssl-keyfile-password"}

var sglangArgs = sync.OnceValue(catalog.SGLangArgs)

// IsSecretFlag reports whether an SGLang option, as written, selects a
// flag whose value is a credential. The option is resolved the way
// argparse resolves it, so --api-k (a unique prefix of --api-key) is one;
// a prefix that is ambiguous counts as secret when any flag it could
// select is. An option the catalog does not know is judged by the
// variable rule on its name (--hf-token is one).
func IsSecretFlag(opt string) bool {
	f, _, err := sglangArgs().Resolve(opt)
	if err == nil {
		return slices.Contains(SecretFlags, f.Name)
	}
	if amb := (*catalog.AmbiguousError)(nil); errors.As(err, &amb) {
		for _, m := range amb.Matches {
			if g, ok := sglangArgs().Lookup(m); ok && slices.Contains(SecretFlags, g.Name) {
				return true
			}
		}
		return false
	}
	return credentialName(strings.TrimLeft(opt, "-"))
}

// IsSecretVar reports whether an environment variable holds a credential.
// A variable one of the catalogs knows (SGLang's registry, NCCL, CUDA and
// PyTorch) is a credential only when the catalog says so (SGLang marks
// EXA_API_KEY secret): SGLANG_MAX_NEW_TOKENS_LIMIT and NCCL_IB_PKEY are
// settings. Any other name is judged by how credentials are named:
// *_TOKEN, *_API_KEY, *SECRET*, *PASSWORD*, *_ACCESS_KEY*, ...
func IsSecretVar(name string) bool {
	if v, ok := catalog.SGLangEnvCatalog().Lookup(name); ok {
		return v.Secret
	}
	if knownSetting(name) {
		return false
	}
	return credentialName(name)
}

// knownSetting reports whether a catalog lists name as a variable that is
// not a credential.
func knownSetting(name string) bool {
	sgl := catalog.SGLangEnvCatalog()
	if sgl.Reads(name) {
		return true
	}
	if _, ok := sgl.LookupRetired(name); ok {
		return true
	}
	for _, c := range []*catalog.EnvCatalog{catalog.NCCLEnv(), catalog.OtherEnv()} {
		if _, ok := c.Lookup(name); ok {
			return true
		}
		if _, ok := c.LookupAlias(name); ok {
			return true
		}
		if _, ok := c.LookupRemoved(name); ok {
			return true
		}
	}
	return false
}

// credentialName is the rule for names no catalog knows, over the words
// of the name (split at _ and -, any case):
//   - the last word is TOKEN (HF_TOKEN, GITHUB_TOKEN, AWS_SESSION_TOKEN);
//   - it ends in API_KEY or APIKEY (OPENAI_API_KEY, WANDB_API_KEY);
//   - a word holds SECRET, PASSWORD, PASSWD or PASSPHRASE;
//   - it holds ACCESS_KEY or PRIVATE_KEY (AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID).
//
// Words like TOKENS, KEY alone or PKEY are not credentials:
// MY_MAX_TOKENS and GRAPH_KEY are settings.
func credentialName(name string) bool {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' })
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if last == "TOKEN" || last == "APIKEY" {
		return true
	}
	for i, w := range words {
		for _, s := range []string{"SECRET", "PASSWORD", "PASSWD", "PASSPHRASE"} {
			if strings.Contains(w, s) {
				return true
			}
		}
		if i+1 < len(words) && words[i+1] == "KEY" {
			switch w {
			case "ACCESS", "PRIVATE":
				return true
			case "API":
				if i+2 == len(words) {
					return true
				}
			}
		}
	}
	return false
}

// IsSecretKey reports whether a --set or --unset key (args.FLAG, env.NAME
// or a setting) names a credential.
func IsSecretKey(key string) bool {
	if name, ok := strings.CutPrefix(key, "args."); ok {
		return name != "" && IsSecretFlag("--"+name)
	}
	if name, ok := strings.CutPrefix(key, "env."); ok {
		return IsSecretVar(name)
	}
	return false
}
