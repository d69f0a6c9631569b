package cluster

// The subset of the Kubernetes and LeaderWorkerSet API that LWSManifest
// writes, as typed structs in the APIs' own field order, so that the YAML
// is rendered, never assembled as text.

type objectMeta struct {
	Name        string            `yaml:"name,omitempty"`
	Namespace   string            `yaml:"namespace,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
}

type leaderWorkerSet struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       lwsSpec    `yaml:"spec"`
}

type lwsSpec struct {
	Replicas             int                  `yaml:"replicas"`
	StartupPolicy        string               `yaml:"startupPolicy"`
	LeaderWorkerTemplate leaderWorkerTemplate `yaml:"leaderWorkerTemplate"`
}

type leaderWorkerTemplate struct {
	Size           int             `yaml:"size"`
	RestartPolicy  string          `yaml:"restartPolicy"`
	WorkerTemplate podTemplateSpec `yaml:"workerTemplate"`
}

type podTemplateSpec struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     podSpec    `yaml:"spec"`
}

type podSpec struct {
	TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
	Containers                    []container `yaml:"containers"`
	Volumes                       []volume    `yaml:"volumes"`
}

type container struct {
	Name           string               `yaml:"name"`
	Image          string               `yaml:"image"`
	Command        []string             `yaml:"command"`
	Ports          []containerPort      `yaml:"ports"`
	Env            []envVar             `yaml:"env,omitempty"`
	Resources      resourceRequirements `yaml:"resources"`
	VolumeMounts   []volumeMount        `yaml:"volumeMounts"`
	StartupProbe   probe                `yaml:"startupProbe"`
	ReadinessProbe probe                `yaml:"readinessProbe"`
	LivenessProbe  probe                `yaml:"livenessProbe"`
	Lifecycle      *lifecycle           `yaml:"lifecycle,omitempty"`
}

type lifecycle struct {
	PreStop lifecycleHandler `yaml:"preStop"`
}

type lifecycleHandler struct {
	Exec execAction `yaml:"exec"`
}

type execAction struct {
	Command []string `yaml:"command"`
}

type containerPort struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
	Protocol      string `yaml:"protocol"`
}

type resourceRequirements struct {
	Limits   map[string]int    `yaml:"limits"`
	Requests map[string]string `yaml:"requests,omitempty"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

type probe struct {
	HTTPGet          httpGetAction `yaml:"httpGet"`
	PeriodSeconds    int           `yaml:"periodSeconds"`
	TimeoutSeconds   int           `yaml:"timeoutSeconds"`
	FailureThreshold int           `yaml:"failureThreshold"`
}

type httpGetAction struct {
	Path string `yaml:"path"`
	Port string `yaml:"port"` // a named container port
}

type volume struct {
	Name      string           `yaml:"name"`
	EmptyDir  *emptyDirSource  `yaml:"emptyDir,omitempty"`
	ConfigMap *configMapSource `yaml:"configMap,omitempty"`
}

type emptyDirSource struct {
	Medium    string `yaml:"medium"`
	SizeLimit string `yaml:"sizeLimit,omitempty"`
}

type configMapSource struct {
	Name string `yaml:"name"`
}

type service struct {
	APIVersion string      `yaml:"apiVersion"`
	Kind       string      `yaml:"kind"`
	Metadata   objectMeta  `yaml:"metadata"`
	Spec       serviceSpec `yaml:"spec"`
}

type serviceSpec struct {
	Selector map[string]string `yaml:"selector"`
	Ports    []servicePort     `yaml:"ports"`
}

type servicePort struct {
	Name       string `yaml:"name"`
	Port       int    `yaml:"port"`
	TargetPort string `yaml:"targetPort"`
	Protocol   string `yaml:"protocol"`
}

type envVar struct {
	Name      string       `yaml:"name"`
	ValueFrom envVarSource `yaml:"valueFrom"`
}

type envVarSource struct {
	SecretKeyRef secretKeySelector `yaml:"secretKeyRef"`
}

type secretKeySelector struct {
	Name string `yaml:"name"`
	Key  string `yaml:"key"`
}

type secret struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Type       string            `yaml:"type"`
	StringData map[string]string `yaml:"stringData"`
}
