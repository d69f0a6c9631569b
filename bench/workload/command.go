package workload

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template"
)

// TemplateData is what a command template sees: {{.URL}}, {{.Python}}, ...
type TemplateData struct {
	URL  string // the server's base URL, http://HOST:PORT
	Host string
	Port int
	// Model is the served model's name as /v1/models lists it.
	Model string
	// Python is the plan's interpreter (python3 without a plan).
	Python      string
	Profile     string
	Fingerprint string
	Workload    string
	// ResultFile is a path the command may write results to (JSON or
	// JSON lines); its content goes into the record.
	ResultFile string
	// Dir is a scratch directory for the command, removed afterwards.
	Dir string
}

func sampleData() TemplateData {
	return TemplateData{URL: "http://127.0.0.1:30000", Host: "127.0.0.1", Port: 30000, Model: "model", Python: "python3",
		Profile: "profile", Fingerprint: "0123456789ab", Workload: "workload", ResultFile: "/tmp/result.json", Dir: "/tmp"}
}

// templateFields lists the fields a template may use, as {{.Name}}.
func templateFields() []string {
	t := reflect.TypeFor[TemplateData]()
	out := make([]string, t.NumField())
	for i := range out {
		out[i] = "{{." + t.Field(i).Name + "}}"
	}
	return out
}

// Expand runs one command template on data.
func Expand(text string, data TemplateData) (string, error) {
	t, err := template.New("command").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", fmt.Errorf("bad template: %s", strings.TrimPrefix(err.Error(), "template: "))
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("bad template: %s", strings.TrimPrefix(err.Error(), "template: "))
	}
	return b.String(), nil
}

// CommandLine is an external workload's command as written.
func CommandLine(w Workload) string {
	if w.Shell {
		return w.Command[0]
	}
	return quoteArgs(w.Command)
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?;&|<>(){}") {
			a = strconv.Quote(a)
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
