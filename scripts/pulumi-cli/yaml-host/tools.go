//go:build tools

// Package tools pins the Pulumi YAML language host so `go build` resolves it from this module's go.sum.
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
