package catalog

import _ "embed"

// Raw reference files, as copied from the project's shared reference set.
var (
	//go:embed data/sglang-server-args.txt
	sglangServerArgsTxt string
	//go:embed data/sglang-server-args-help.txt
	sglangServerArgsHelpTxt string
	//go:embed data/sglang-envs.txt
	sglangEnvsTxt string
	//go:embed data/nccl-env.tsv
	ncclEnvTSV string
	//go:embed data/nccl-env-removed.tsv
	ncclEnvRemovedTSV string
	//go:embed data/other-env.tsv
	otherEnvTSV string
)
