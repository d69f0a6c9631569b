// Package sglangtab holds the tables of SGLang facts generated from
// SGLang's own source, one directory per SGLang version (the variables
// SGLang writes into its own environment, the server arguments, the
// environment names it reads, its metrics, endpoints and the start-up log
// lines phases depend on), and picks the table set for an installed
// version: the exact one, else the nearest older with a warning.
//
// Every row names the SGLang file and line it was read from; the tables
// are written by the generator in ./gen (see its doc) and never edited by
// hand. The package only reads embedded data: it never runs SGLang,
// python or git, and never touches the network.
package sglangtab
