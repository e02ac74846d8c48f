{{- define "crucible.name" -}}crucible{{- end -}}

{{- define "crucible.fullname" -}}
{{- if contains "crucible" .Release.Name -}}{{ .Release.Name | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-crucible" .Release.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}

{{- define "crucible.labels" -}}
app.kubernetes.io/name: crucible
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "crucible.operatorSelector" -}}
app.kubernetes.io/name: crucible
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{/* REGISTRY/NAME:TAG of one Crucible image: (dict "root" $ "name" .Values.image.operator). */}}
{{- define "crucible.imageRef" -}}
{{- $image := .root.Values.image -}}
{{- with $image.registry }}{{ trimSuffix "/" . }}/{{ end }}{{ .name }}:{{ $image.tag | default .root.Chart.AppVersion }}
{{- end -}}

{{/* cert-manager is used when asked, or on auto when its API is served. */}}
{{- define "crucible.useCertManager" -}}
{{- $cm := toString .Values.webhook.certManager.enabled -}}
{{- if or (eq $cm "true") (and (eq $cm "auto") (.Capabilities.APIVersions.Has "cert-manager.io/v1")) -}}true{{- end -}}
{{- end -}}

{{/* How the webhook gets its serving certificate: "cert-manager", "self-signed" (the operator issues
     and rotates it), or empty when the webhook is off. */}}
{{- define "crucible.webhookMode" -}}
{{- if .Values.webhook.enabled -}}
{{- if include "crucible.useCertManager" . -}}cert-manager{{- else -}}self-signed{{- end -}}
{{- end -}}
{{- end -}}

{{- define "crucible.selfSignedSecret" -}}
{{ include "crucible.fullname" . }}-webhook-selfsigned
{{- end -}}
