// Package redact hides credentials (API keys, tokens, passwords) in
// everything sglaunch prints or writes.
//
// It judges by canonical name alone, by an explicit rule (rule.go): the
// SGLang flags whose value is a credential (--api-key, --admin-api-key,
// --ssl-keyfile-password, found after argparse's prefix resolution), and
// variables that the catalogs mark secret or, for names no catalog
// knows, that are named like credentials (HF_TOKEN, *_API_KEY,
// *SECRET*). A setting is never masked: --max-total-tokens and
// NCCL_IB_PKEY are shown as they are. It never logs, stores or compares
// the values it hides.
package redact
