//go:build tools

// Package tools pins the Node.js language host (last shipped inside sdk/v3 at v3.68.0).
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs"
