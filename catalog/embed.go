package catalog

import _ "embed"

// Reference files the generated SGLang tables (package sglangtab) do not
// cover: NCCL and other libraries' variables, and notes on SGLang names
// the tables cannot express.
var (
	//go:embed data/sglang-envs-notes.txt
	sglangEnvNotesTxt string
	//go:embed data/nccl-env.tsv
	ncclEnvTSV string
	//go:embed data/nccl-env-removed.tsv
	ncclEnvRemovedTSV string
	//go:embed data/other-env.tsv
	otherEnvTSV string
)
