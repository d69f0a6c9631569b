package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/selfexe"
)

func slurmCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "slurm",
		Usage: "print an sbatch script that runs `sglaunch serve` for a multi-node profile on every node",
		Description: "One srun step over the allocation (--ntasks-per-node=1 --kill-on-bad-exit=1): each rank reads its\n" +
			"place from the step. The profile and this sglaunch binary must be at the same paths on every node.\n" +
			"The script unsets SGLAUNCH_SET, SGLAUNCH_HOST and SGLAUNCH_PORT, so the job runs the profile as it is\n" +
			"and the header's fingerprint holds. Needs multinode.nodes above 1 and orchestrator auto or slurm.",
		Flags: []cli.Flag{
			profileFlag,
			&cli.StringFlag{Name: "job-name", Usage: "sbatch --job-name `NAME` (default sglaunch-PROFILE)"},
			&cli.StringFlag{Name: "partition", Usage: "sbatch --partition `NAME`"},
			&cli.StringFlag{Name: "time", Usage: "sbatch --time `LIMIT` (like 7-00:00:00)"},
			&cli.StringFlag{Name: "account", Usage: "sbatch --account `NAME`"},
			&cli.IntFlag{Name: "gpus-per-node", Usage: "sbatch --gpus-per-node `N`", DefaultText: "--tp-size × --pp-size / nodes, when the profile gives --tp-size"},
			&cli.BoolFlag{Name: "exclusive", Usage: "sbatch --exclusive: no other job shares the nodes"},
			&cli.StringFlag{Name: "job-output", Usage: "sbatch --output `PATTERN` for the job's log (default Slurm's slurm-%j.out; appended to across requeues)"},
			&cli.IntFlag{Name: "max-requeues", Usage: "requeue a failed group (exit 1) up to `N` times; never a drained stop or bad input (default 0: a failed group ends the job FAILED)"},
			outFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return inputerr.Errorf("slurm: unexpected argument %q; the job runs the profile as it is (set values in the profile, not here)", c.Args().First())
			}
			exe, err := selfexe.Path("slurm")
			if err != nil {
				return err
			}
			p, _, err := e.deployPlan(c, "the job: the script unsets it, so that every rank runs the profile as it is", "")
			if err != nil {
				return err
			}
			script, err := cluster.SbatchScript(p, cluster.SbatchOptions{
				Exe: exe, JobName: c.String("job-name"), Partition: c.String("partition"), Time: c.String("time"),
				Account: c.String("account"), GPUsPerNode: c.Int("gpus-per-node"), Exclusive: c.Bool("exclusive"), Output: c.String("job-output"),
				MaxRequeues: c.Int("max-requeues"),
			})
			if err != nil {
				return err
			}
			return e.writeOut(c, []byte(script))
		},
	}
}
