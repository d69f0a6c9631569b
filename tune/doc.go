// Package tune searches a space of settings for the fastest server: each
// point of the space is the base profile's plan with a few --set
// overrides (managed variables, SGLang flags), launched once and measured
// with bench's run machinery, round by round, against an objective (a
// workload's metric and its better direction) under constraints on other
// metrics.
//
// Strategies: grid (every point), random (count points drawn with a
// seed), adaptive (grid with racing: a point's rounds stop once it is
// beyond noise worse than the best so far, so only contenders get every
// round; the default when a budget cannot hold the grid) and halving
// (every point one round, the best fraction relaunched for more). The
// base profile is always a point: the baseline. A point whose plan
// fingerprint already has a finished record for the same workload is
// reused, not run. Failures (a crash during the load with its phase, a
// failed workload) are results; the search goes on. The tune record is
// checkpointed atomically after every change, so that a killed tune
// resumes without rerunning a finished point. The winner is named only
// when it beats the baseline beyond noise, by the statistics of bench
// compare (Welch's 95 % interval); then a profile that extends the base
// and sets only what changed is written beside the record. A tune may
// also run as Slurm job arrays, stage after stage (PrepareArray plans
// stage 0; one session per share with Config.Shard measures the stage's
// items, each into its own file; Record.Collect gathers the shares, and
// NextArray plans the next stage of the points left, the same ones a
// local search would measure next: points a task left, halving's
// contenders; with none left, the judgement).
//
// The command hands it its flags as Options: Open starts the record (or
// resumes one, or a share of one), Check readies the search before any
// launch (the objective's workload, the base plan, every value of the
// space resolved), PrepareArray and NextArray write the sbatch script of
// a stage's job array.
//
// What it must not do: start or stop a server itself (the caller hands
// it a launch function), load or resolve profiles (the caller hands it
// a loader and a resolver), parse the command line, judge noise with
// statistics of its own (package bench has the one rule), or write its
// record other than through internal/statefile.
package tune
