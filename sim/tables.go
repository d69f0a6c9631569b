package sim

import (
	"fmt"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// tablesPath is where the sim reads the variables SGLang writes into its
// own environment: the env_writes table generated from SGLang's source,
// for the version the sim reports (picked as verify picks it).
const tablesPath = "sglang/srt/sglang_env_writes.json"

// envWritesJSON is that table, as generated.
func envWritesJSON() ([]byte, error) {
	c, err := sglangtab.For(Version)
	if err != nil {
		return nil, fmt.Errorf("sglang tables: %w", err)
	}
	files, err := sglangtab.Encode(c.Tables)
	if err != nil {
		return nil, fmt.Errorf("sglang tables: %w", err)
	}
	return files["env_writes.json"], nil
}
