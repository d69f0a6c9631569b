package plan

import (
	"context"

	"github.com/sethvargo/go-envconfig"
)

// Config is sglaunch's own configuration from SGLAUNCH_* variables. It
// sits above the profile and below the command line: a flag given on the
// command line overrides the variable of the same meaning.
type Config struct {
	// Profile names the profile (name or path) when --profile is absent.
	Profile string `env:"SGLAUNCH_PROFILE"`
	// ProfilePath is a colon-separated list of directories searched for
	// profiles before the XDG, /etc and built-in locations.
	ProfilePath string `env:"SGLAUNCH_PROFILE_PATH"`
	// StateDir holds bench records, load timings and caches
	// (default /var/lib/sglaunch for root, else $XDG_STATE_HOME/sglaunch).
	StateDir string `env:"SGLAUNCH_STATE_DIR"`
	// RuntimeDir holds the runtime state files of running launches
	// (default /run/sglaunch for root, else $XDG_RUNTIME_DIR/sglaunch).
	RuntimeDir string `env:"SGLAUNCH_RUNTIME_DIR"`
	// Python overrides the profile's interpreter.
	Python string `env:"SGLAUNCH_PYTHON"`
	// Host and Port override the server's --host and --port.
	Host string `env:"SGLAUNCH_HOST"`
	Port string `env:"SGLAUNCH_PORT"`
	// Set holds KEY=VALUE assignments like --set, separated by ";".
	Set []string `env:"SGLAUNCH_SET, delimiter=;"`
	// LogFormat is text or json for sglaunch's own lines.
	LogFormat string `env:"SGLAUNCH_LOG_FORMAT"`
	// LogFile also appends the server's output to this file.
	LogFile string `env:"SGLAUNCH_LOG_FILE"`
	// StatusAddr overrides the profile's status_addr.
	StatusAddr string `env:"SGLAUNCH_STATUS_ADDR"`
}

// LoadConfig reads Config through lookup (os.LookupEnv in production).
func LoadConfig(ctx context.Context, lookup func(string) (string, bool)) (Config, error) {
	var s Config
	err := envconfig.ProcessWith(ctx, &envconfig.Config{
		Target:   &s,
		Lookuper: envconfig.LookuperFunc(lookup),
	})
	return s, err
}
