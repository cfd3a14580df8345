// The quick start's catalog in Go, through the serviceapi plugin's generated Go SDK (sdk/go).
//
// Two ways to run it, on the same stacks and the same stack config (docs/sdks.md):
//
//	pulumi up                  # Pulumi.yaml says runtime: go; the CLI's Go language host builds and runs main
//	go run . up                # no Go language host needed: main drives its own stack (Automation API)
//	go run . -stack prod -diff preview
//	go run . -refresh -expect-no-changes preview   # the drift gate: exits 7 when the service drifted
//	go run . destroy
//
// The second way serves the program to the `pulumi` CLI from this process, so it works with any
// CLI (≥ 3.248), including one without pulumi-language-go. test/engine/go-automation.test.ts runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"

	"github.com/pulumi-serviceapi/pulumi-serviceapi/sdk/go/serviceapi"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// catalog is the Pulumi program, whichever way it runs.
func catalog(ctx *pulumi.Context) error {
	name := config.Get(ctx, "projectName")
	if name == "" {
		name = "Acme Web"
	}
	// Projects are referred to by name; the lookup fails clearly if none (or several) match.
	project, err := serviceapi.GetProject(ctx, &serviceapi.GetProjectArgs{Name: pulumi.StringRef(name)})
	if err != nil {
		return err
	}
	pro, err := serviceapi.NewProduct(ctx, "pro-plan", &serviceapi.ProductArgs{
		ProjectId:           pulumi.String(project.Id),
		Title:               pulumi.String("Pro plan"),
		Description:         pulumi.String("Everything in Starter, plus priority support."),
		Slug:                pulumi.String("pro"),
		Status:              pulumi.String("active"),
		ExternalCheckoutUrl: pulumi.String("https://shop.example.com/checkout/pro"),
	})
	if err != nil {
		return err
	}
	legacy, err := serviceapi.NewProduct(ctx, "legacy-plan", &serviceapi.ProductArgs{
		ProjectId: pulumi.String(project.Id),
		Title:     pulumi.String("Legacy basic plan"),
		Slug:      pulumi.String("legacy-basic"),
		Status:    pulumi.String("archived"),
	})
	if err != nil {
		return err
	}
	// Sites cannot be created through the API: this renames the project's default site, and
	// `pulumi destroy` gives it its original name back.
	site, err := serviceapi.LookupSite(ctx, &serviceapi.LookupSiteArgs{ProjectId: project.Id, IsDefault: pulumi.BoolRef(true)})
	if err != nil {
		return err
	}
	home, err := serviceapi.NewSite(ctx, "home", &serviceapi.SiteArgs{
		ProjectId: pulumi.String(project.Id),
		SiteId:    pulumi.String(site.Id),
		Name:      pulumi.String("Acme — Home"),
	})
	if err != nil {
		return err
	}
	ctx.Export("productIds", pulumi.StringMap{"pro": pro.ID().ToStringOutput(), "legacy": legacy.ID().ToStringOutput()})
	ctx.Export("siteSubdomain", home.Subdomain)
	return nil
}

const usage = `usage: go run . [-stack NAME] [-diff] [-refresh] [-expect-no-changes] up|preview|refresh|destroy

Runs this program on a stack of the project in the current folder (its Pulumi.yaml and
Pulumi.<stack>.yaml), through the pulumi CLI on PATH and its current backend (pulumi login).
Without a command, main is the program itself, as the CLI's Go language host runs it.`

func main() {
	// Started by the CLI's Go language host (which hands it the engine's address): main is the program.
	if os.Getenv(pulumi.EnvMonitor) != "" {
		pulumi.Run(catalog)
		return
	}
	os.Exit(drive(os.Args[1:]))
}

// drive runs one stack operation with the Automation API and returns the CLI's exit code.
func drive(args []string) int {
	flags := flag.NewFlagSet("catalog-go", flag.ContinueOnError)
	flags.Usage = func() { fmt.Fprintln(os.Stderr, usage) }
	stackName := flags.String("stack", "dev", "the stack")
	diff := flags.Bool("diff", false, "show the diff of every changed field")
	refresh := flags.Bool("refresh", false, "read the service's records first, so drift shows")
	expectNoChanges := flags.Bool("expect-no-changes", false, "fail (exit 7) if anything would change")
	if err := flags.Parse(args); err != nil || flags.NArg() != 1 {
		flags.Usage()
		return 2
	}

	// Ctrl-C cancels the operation (the CLI is stopped and the stack keeps what it finished).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The folder's Pulumi.yaml is the project; the program is served from this process.
	stack, err := auto.UpsertStackInlineSource(ctx, *stackName, "catalog-go", catalog, auto.WorkDir("."))
	if err != nil {
		fmt.Fprintf(os.Stderr, "catalog-go: stack %q: %v\n", *stackName, err)
		return 1
	}
	out, errs := os.Stdout, os.Stderr
	switch command := flags.Arg(0); command {
	case "preview":
		opts := []optpreview.Option{optpreview.ProgressStreams(out), optpreview.ErrorProgressStreams(errs)}
		if *diff {
			opts = append(opts, optpreview.Diff())
		}
		if *refresh {
			opts = append(opts, optpreview.Refresh())
		}
		if *expectNoChanges {
			opts = append(opts, optpreview.ExpectNoChanges())
		}
		_, err = stack.Preview(ctx, opts...)
	case "up":
		opts := []optup.Option{optup.ProgressStreams(out), optup.ErrorProgressStreams(errs)}
		if *diff {
			opts = append(opts, optup.Diff())
		}
		if *refresh {
			opts = append(opts, optup.Refresh())
		}
		if *expectNoChanges {
			opts = append(opts, optup.ExpectNoChanges())
		}
		_, err = stack.Up(ctx, opts...)
	case "refresh":
		opts := []optrefresh.Option{optrefresh.ProgressStreams(out), optrefresh.ErrorProgressStreams(errs)}
		if *expectNoChanges {
			opts = append(opts, optrefresh.ExpectNoChanges())
		}
		_, err = stack.Refresh(ctx, opts...)
	case "destroy":
		_, err = stack.Destroy(ctx, optdestroy.ProgressStreams(out), optdestroy.ErrorProgressStreams(errs))
	default:
		fmt.Fprintf(os.Stderr, "catalog-go: unknown command %q: use up, preview, refresh or destroy\n", command)
		return 2
	}
	if err != nil {
		// The CLI's own output and errors have been shown already; its exit code is passed on.
		code := cliExitCode(err)
		fmt.Fprintf(os.Stderr, "catalog-go: %s failed (pulumi exited %d): see the output above\n", flags.Arg(0), code)
		return code
	}
	return 0
}

// cliExitCode is the CLI's exit code an Automation API error carries in its text ("code: N"; the
// error type has no accessor). Without one the CLI did not run: the error is printed, and it is 1.
func cliExitCode(err error) int {
	if m := regexp.MustCompile(`\ncode: (\d+)\n`).FindStringSubmatch(err.Error()); m != nil {
		if code, _ := strconv.Atoi(m[1]); code > 0 {
			return code
		}
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}
