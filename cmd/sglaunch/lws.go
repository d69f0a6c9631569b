package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/internal/inputerr"
)

func lwsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "lws",
		Usage: "print a Kubernetes LeaderWorkerSet manifest that runs `sglaunch serve` for a multi-node profile",
		Description: "A ConfigMap with the profile (extends applied; a profile holding a credential is refused), a\n" +
			"LeaderWorkerSet whose pods run sglaunch serve on it, with probes on sglaunch's status endpoint, and a\n" +
			"Service for rank 0's HTTP API. Apply with kubectl apply -f. Needs multinode.nodes above 1,\n" +
			"orchestrator auto or lws, and args.host 0.0.0.0.",
		Flags: []cli.Flag{
			profileFlag,
			&cli.StringFlag{Name: "image", Usage: "container `IMAGE` holding sglaunch, python and SGLang (required)"},
			&cli.StringFlag{Name: "name", Usage: "the LeaderWorkerSet's `NAME` (default sglaunch-PROFILE)"},
			&cli.StringFlag{Name: "namespace", Usage: "`NAMESPACE` of the objects (default kubectl's)"},
			&cli.IntFlag{Name: "replicas", Value: 1, Usage: "`N` groups, each a whole server"},
			&cli.IntFlag{Name: "gpus-per-node", Usage: "`N` nvidia.com/gpu per pod", DefaultText: "--tp-size × --pp-size / nodes"},
			&cli.StringFlag{Name: "cpu", Usage: "each pod's cpu request, a Kubernetes `QUANTITY`", DefaultText: "4 per GPU"},
			&cli.StringFlag{Name: "memory", Usage: "each pod's memory request, a Kubernetes `QUANTITY`", DefaultText: "32Gi per GPU"},
			&cli.StringFlag{Name: "shm-size", Usage: "bound of the pod's /dev/shm (in memory), a Kubernetes `QUANTITY`", DefaultText: cluster.DefaultShmSize},
			outFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return inputerr.Errorf("lws: unexpected argument %q; the pods run the profile as it is (set values in the profile, not here)", c.Args().First())
			}
			p, prof, err := e.deployPlan(c, "the manifest: the pods do not see your environment",
				"the pods will not have it: add it to the container's env (from a Secret for a credential)")
			if err != nil {
				return err
			}
			manifest, err := cluster.LWSManifest(p, cluster.LWSOptions{
				Profile: prof, Name: c.String("name"), Namespace: c.String("namespace"), Image: c.String("image"),
				Replicas: c.Int("replicas"), GPUsPerNode: c.Int("gpus-per-node"),
				CPU: c.String("cpu"), Memory: c.String("memory"), ShmSize: c.String("shm-size"),
			})
			if err != nil {
				return err
			}
			return e.writeOut(c, []byte(manifest))
		},
	}
}
