//go:build tools

// Package tools pins the Pulumi CLI so `go build` resolves it from this module's go.sum.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
