// The quick start's catalog as a Go program on the generated Go SDK (sdk/go/serviceapi), run under
// the real Pulumi CLI through Pulumi's Go Automation API: an inline program runs inside this test
// process, which serves it to the CLI, so no Go language host (pulumi-language-go) is needed. The
// serviceapi plugin is the one the npm package installs; the service is the simulator.
//
// One ordered scenario, as a team meets it — up, a one-field change, the drift gate, import of a
// product made elsewhere (with the `import` resource option: `pulumi import` itself needs the Go
// language host), a second account through an explicit provider with its own token, destroy —
// asserted on what went over the wire (the simulators' request logs) and what a user reads. The
// tokens never appear in any output, in `pulumi stack export`, or in the state file.
//
// Run by test/engine/go-automation.test.ts, which starts the simulators and passes their addresses.
package catalog_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pulumi-serviceapi/pulumi-serviceapi/sdk/go/serviceapi"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// product is one product the program declares (all but its project).
type product struct {
	name, title, description, slug, status, checkoutURL string
	// An existing product's import id (<projectId>/<productId>): the `import` resource option.
	importID string
}

// catalog is what the program declares; the test changes it between runs, as a user edits a program.
type catalog struct {
	projectName string
	products    []product
	// A second account, through an explicit provider; nil until that step.
	globex *account
}

type account struct {
	url, token, projectName string
}

// The quick start's catalog (examples/quickstart/index.ts).
var quickStart = []product{
	{name: "pro-plan", title: "Pro plan", description: "Everything in Starter, plus priority support.", slug: "pro", status: "active",
		checkoutURL: "https://shop.example.com/checkout/pro"},
	{name: "legacy-plan", title: "Legacy basic plan", slug: "legacy-basic", status: "archived"},
	{name: "enterprise-plan", title: "Enterprise plan", description: "Custom contracts. Talk to sales.", status: "draft"},
}

func optional(value string) pulumi.StringPtrInput {
	if value == "" {
		return nil
	}
	return pulumi.String(value)
}

func imported(id string) []pulumi.ResourceOption {
	if id == "" {
		return nil
	}
	return []pulumi.ResourceOption{pulumi.Import(pulumi.ID(id))}
}

// program is the inline Pulumi program: the quick start's catalog on the generated Go SDK.
func program(c *catalog) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		// Projects are referred to by name; the lookup fails clearly if none (or several) match.
		project, err := serviceapi.GetProject(ctx, &serviceapi.GetProjectArgs{Name: pulumi.StringRef(c.projectName)})
		if err != nil {
			return err
		}
		ids := pulumi.StringMap{}
		for _, p := range c.products {
			made, err := serviceapi.NewProduct(ctx, p.name, &serviceapi.ProductArgs{
				ProjectId:           pulumi.String(project.Id),
				Title:               pulumi.String(p.title),
				Description:         optional(p.description),
				Slug:                optional(p.slug),
				Status:              optional(p.status),
				ExternalCheckoutUrl: optional(p.checkoutURL),
			}, imported(p.importID)...)
			if err != nil {
				return err
			}
			ids[p.name] = made.ID().ToStringOutput()
		}
		// Sites cannot be created through the API: this renames the project's default site, and
		// destroy gives it its original name back.
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
		report, err := serviceapi.NewTask(ctx, "weekly-report", &serviceapi.TaskArgs{
			ProjectId:   pulumi.String(project.Id),
			Title:       pulumi.String("Weekly sales report"),
			Prompt:      pulumi.String("Summarize last week's orders by product and flag anything unusual."),
			ScheduledAt: pulumi.String("2026-01-05T09:00:00Z"), // a past Monday: the series starts then
			Rrule:       pulumi.String("FREQ=WEEKLY;BYDAY=MO"),
			Emoji:       pulumi.String("📈"),
		})
		if err != nil {
			return err
		}
		if g := c.globex; g != nil {
			// A second account: its own token, kept secret from the start (pulumi.ToSecret).
			globex, err := serviceapi.NewProvider(ctx, "globex", &serviceapi.ProviderArgs{
				BaseUrl: pulumi.String(g.url),
				Token:   pulumi.ToSecret(pulumi.String(g.token)).(pulumi.StringOutput),
			})
			if err != nil {
				return err
			}
			// The lookup goes through the second account too.
			shop, err := serviceapi.GetProject(ctx, &serviceapi.GetProjectArgs{Name: pulumi.StringRef(g.projectName)}, pulumi.Provider(globex))
			if err != nil {
				return err
			}
			plan, err := serviceapi.NewProduct(ctx, "globex-plan", &serviceapi.ProductArgs{
				ProjectId: pulumi.String(shop.Id),
				Title:     pulumi.String("Globex plan"),
			}, pulumi.Provider(globex))
			if err != nil {
				return err
			}
			ids["globex-plan"] = plan.ID().ToStringOutput()
		}
		ctx.Export("projectId", pulumi.String(project.Id))
		ctx.Export("productIds", ids)
		ctx.Export("siteId", home.SiteId)
		ctx.Export("siteOriginalName", home.OriginalName)
		ctx.Export("reportId", report.ID())
		return nil
	}
}

func TestCatalog(t *testing.T) {
	started := time.Now()
	ctx := t.Context()
	acme := simulator{url: setting(t, "SERVICEAPI_GO_TEST_ACME_URL"), token: setting(t, "SERVICEAPI_GO_TEST_ACME_TOKEN")}
	globex := simulator{url: setting(t, "SERVICEAPI_GO_TEST_GLOBEX_URL"), token: setting(t, "SERVICEAPI_GO_TEST_GLOBEX_TOKEN")}
	acmeWeb := setting(t, "SERVICEAPI_GO_TEST_PROJECT_ID")
	pluginDir := setting(t, "SERVICEAPI_GO_TEST_PLUGIN_DIR")
	pulumiBin := setting(t, "SERVICEAPI_GO_TEST_PULUMI_BIN")

	// The CLI from scripts/install-pulumi.sh; the Automation API wants <root>/bin/pulumi.
	root := filepath.Dir(pulumiBin)
	if filepath.Base(pulumiBin) != "bin" {
		root = t.TempDir()
		if err := os.Symlink(pulumiBin, filepath.Join(root, "bin")); err != nil {
			t.Fatal(err)
		}
	}
	cli, err := auto.NewPulumiCommand(&auto.PulumiCommandOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}

	// A local file backend and PULUMI_HOME in a scratch folder, removed when the test ends; nothing
	// reaches the network. Stack config is the only source of settings, as in a GitOps pipeline.
	scratch := t.TempDir()
	state := filepath.Join(scratch, "state")
	for _, dir := range []string{state, filepath.Join(scratch, "project")} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		"PULUMI_BACKEND_URL":                          "file://" + state,
		"PULUMI_CONFIG_PASSPHRASE":                    "go-engine-test",
		"PULUMI_SKIP_UPDATE_CHECK":                    "true",
		"PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
		"SERVICEAPI_TOKEN":                            "",
		"SERVICEAPI_BASE_URL":                         "",
		"SERVICEAPI_PUBLIC_BASE_URL":                  "",
	}
	c := &catalog{projectName: "Acme Web", products: slices.Clone(quickStart)}
	stack, err := auto.NewStackInlineSource(ctx, "test", "catalog-go", program(c),
		auto.Pulumi(cli),
		auto.WorkDir(filepath.Join(scratch, "project")),
		auto.PulumiHome(filepath.Join(scratch, "pulumi-home")),
		auto.EnvVars(env),
		// The plugin from the installed npm package, as a Go project's Pulumi.yaml would name it.
		auto.Project(workspace.Project{
			Name:    "catalog-go",
			Runtime: workspace.NewProjectRuntimeInfo("go", nil),
			Plugins: &workspace.Plugins{Providers: []workspace.PluginOptions{{Name: "serviceapi", Path: pluginDir}}},
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	for key, value := range map[string]auto.ConfigValue{
		"serviceapi:token":   {Value: acme.token, Secret: true},
		"serviceapi:baseUrl": {Value: acme.url},
		// Fast retries keep a failure short; nothing here expects one.
		"serviceapi:initialRetryDelayMs": {Value: "20"},
		"serviceapi:maxRetryDelayMs":     {Value: "200"},
	} {
		if err := stack.SetConfig(ctx, key, value); err != nil {
			t.Fatal(err)
		}
	}

	out := &terminal{}
	up := func(t *testing.T, opts ...optup.Option) auto.UpResult {
		t.Helper()
		res, err := stack.Up(ctx, append(opts, optup.ProgressStreams(out), optup.ErrorProgressStreams(out), optup.Color("never"))...)
		if err != nil {
			t.Fatalf("up: %v", err)
		}
		return res
	}
	preview := func(opts ...optpreview.Option) (auto.PreviewResult, error) {
		return stack.Preview(ctx, append(opts, optpreview.ProgressStreams(out), optpreview.ErrorProgressStreams(out), optpreview.Color("never"))...)
	}
	productIDs := func(t *testing.T) map[string]string {
		t.Helper()
		outputs, err := stack.Outputs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]string{}
		for name, id := range outputs["productIds"].Value.(map[string]any) {
			ids[name] = id.(string)
		}
		return ids
	}
	// Operations other than the lookups a program run makes every time (the project, the default site).
	writes := func(t *testing.T, sim simulator) []string {
		t.Helper()
		return slices.DeleteFunc(sim.operations(t), func(op string) bool { return op == "projects.list" || op == "sites.list" })
	}

	step := func(name string, run func(t *testing.T)) {
		began := time.Now()
		if !t.Run(name, run) {
			t.FailNow()
		}
		t.Logf("step %q: %.1f s", name, time.Since(began).Seconds())
	}

	step("up: the project lookup, the products, the site rename", func(t *testing.T) {
		acme.clearRequests(t)
		res := up(t)
		// The stack, 3 products, the site, the task (default providers are not counted).
		equal(t, "resource changes", *res.Summary.ResourceChanges, map[string]int{"create": 6})
		equal(t, "the project the lookup found", res.Outputs["projectId"].Value, any(acmeWeb))
		if len(acme.requests(t, "projects.list")) == 0 {
			t.Fatal("no projects.list request: the project was not looked up")
		}
		ids := productIDs(t)
		products := acme.products(t)
		got := map[string][2]string{}
		for name, id := range ids {
			got[name] = [2]string{products[id].Title, products[id].Status}
		}
		equal(t, "products on the service (title, status)", got, map[string][2]string{
			"pro-plan":        {"Pro plan", "active"},
			"legacy-plan":     {"Legacy basic plan", "archived"},
			"enterprise-plan": {"Enterprise plan", "draft"},
		})
		renames := acme.requests(t, "sites.update")
		equal(t, "site renames", len(renames), 1)
		equal(t, "the rename", [2]string{renames[0].Path, jsonOf(t, renames[0].Body)},
			[2]string{"/v1/sites/" + res.Outputs["siteId"].Value.(string), `{"name":"Acme — Home"}`})
		if res.Outputs["siteOriginalName"].Value == "Acme — Home" {
			t.Fatal("siteOriginalName is the new name: destroy could not give the site its name back")
		}
	})

	step("a no-change preview sends nothing but the lookups", func(t *testing.T) {
		acme.clearRequests(t)
		res, err := preview(optpreview.ExpectNoChanges())
		if err != nil {
			t.Fatalf("preview: %v", err)
		}
		equal(t, "change summary", res.ChangeSummary, map[apitype.OpType]int{"same": 6})
		equal(t, "requests other than lookups", writes(t, acme), []string{})
	})

	step("one field changed: the preview names it; up sends one PATCH of that key", func(t *testing.T) {
		c.products[0].title = "Pro plan (2027)"
		res, err := preview(optpreview.Diff())
		if err != nil {
			t.Fatalf("preview: %v", err)
		}
		equal(t, "change summary", res.ChangeSummary, map[apitype.OpType]int{"update": 1, "same": 5})
		if !regexp.MustCompile(`~ title\s*: "Pro plan" => "Pro plan \(2027\)"`).MatchString(res.StdOut) {
			t.Fatalf("the preview does not name the title change:\n%s", res.StdOut)
		}
		acme.clearRequests(t)
		done := up(t)
		equal(t, "resource changes", *done.Summary.ResourceChanges, map[string]int{"update": 1, "same": 5})
		equal(t, "requests other than lookups", writes(t, acme), []string{"products.update"})
		patch := acme.requests(t, "products.update")[0]
		body := jsonOf(t, patch.Body)
		equal(t, "the PATCH", [3]string{patch.Method, patch.Path, body},
			[3]string{"PATCH", "/api/v1/public/products/" + productIDs(t)["pro-plan"], `{"title":"Pro plan (2027)"}`})
		report("one-field change: %s %s %s", patch.Method, patch.Path, body)
	})

	step("changed behind Pulumi's back: the drift gate fails naming the field (exit 7); up restores", func(t *testing.T) {
		pro := productIDs(t)["pro-plan"]
		acme.updateProduct(t, pro, map[string]any{"description": "Edited in the admin UI"})
		_, err := preview(optpreview.Refresh(), optpreview.ExpectNoChanges(), optpreview.Diff())
		if err == nil {
			t.Fatal("the drift gate passed although the description was changed on the service")
		}
		text := err.Error()
		equal(t, "exit code", exitCode(t, err), cmdutil.ExitNoChanges)
		if !strings.Contains(text, "error: no changes were expected for preview but changes were proposed") {
			t.Fatalf("the gate's error is not the CLI's:\n%s", text)
		}
		m := regexp.MustCompile(`~ (\w+)\s*: "Edited in the admin UI" => "Everything in Starter, plus priority support\."`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("the gate's diff does not name the drifted field:\n%s", text)
		}
		equal(t, "the field the gate names", m[1], "description")
		report("drift gate: exit %d, field %s", exitCode(t, err), m[1])
		res := up(t, optup.Refresh())
		equal(t, "resource changes", (*res.Summary.ResourceChanges)["update"], 1)
		equal(t, "description on the service", *acme.products(t)[pro].Description, "Everything in Starter, plus priority support.")
	})

	// `pulumi import` (the command, and auto's ImportResources, which runs it) asks the project's
	// language host for the program's plugins even with --generate-code=false, and no Go host is
	// served here; an inline program imports through the `import` resource option instead, which
	// reads the product with the plugin's import (the same <projectId>/<productId> id) in the same way.
	step("import of a product made elsewhere (the import option); declared as it is, it shows no diff", func(t *testing.T) {
		made := acme.createProduct(t, map[string]any{"projectId": acmeWeb, "title": "Made in the UI", "slug": "made-in-ui"})
		// As it is on the service: a new product's status is draft.
		c.products = append(c.products, product{name: "from-ui", title: "Made in the UI", slug: "made-in-ui", status: "draft",
			importID: acmeWeb + "/" + made.ID})
		plan, err := preview()
		if err != nil {
			t.Fatalf("preview of the import: %v", err)
		}
		equal(t, "change summary", plan.ChangeSummary, map[apitype.OpType]int{"import": 1, "same": 6})
		acme.clearRequests(t)
		res := up(t)
		equal(t, "resource changes", *res.Summary.ResourceChanges, map[string]int{"import": 1, "same": 6})
		// Read with an empty PATCH (the API's only read of one product); nothing written, nothing created.
		equal(t, "requests other than lookups", writes(t, acme), []string{"products.update"})
		read := acme.requests(t, "products.update")[0]
		equal(t, "the import's read", [2]string{read.Path, jsonOf(t, read.Body)}, [2]string{"/api/v1/public/products/" + made.ID, "{}"})
		equal(t, "id in state", productIDs(t)["from-ui"], made.ID)
		// The option has done its work; the program keeps declaring the product without it.
		c.products[len(c.products)-1].importID = ""
		check, err := preview(optpreview.ExpectNoChanges())
		if err != nil {
			t.Fatalf("preview after import: %v", err)
		}
		equal(t, "change summary", check.ChangeSummary, map[apitype.OpType]int{"same": 7})
		equal(t, "the product on the service", acme.products(t)[made.ID].Title, "Made in the UI")
	})

	step("a second account: an explicit provider with its own token", func(t *testing.T) {
		c.globex = &account{url: globex.url, token: globex.token, projectName: "Globex Shop"}
		globex.clearRequests(t)
		res := up(t)
		// The explicit provider and its product.
		equal(t, "resource changes", *res.Summary.ResourceChanges, map[string]int{"create": 2, "same": 7})
		plan := globex.products(t)[productIDs(t)["globex-plan"]]
		equal(t, "the product on the second service", plan.Title, "Globex plan")
		equal(t, "requests to the second service", writes(t, globex), []string{"products.create"})
		for _, p := range acme.products(t) {
			if p.Title == "Globex plan" {
				t.Fatal("the second account's product went to the first service")
			}
		}
	})

	step("the tokens are in no output, no `pulumi stack export`, no state file, and are stored encrypted", func(t *testing.T) {
		mustNotContain(t, "the CLI's output", out.String(), acme.token, globex.token)
		// `pulumi stack export` as a user runs it (auto's own Export passes --show-secrets).
		ws := stack.Workspace()
		vars := []string{"PULUMI_HOME=" + ws.PulumiHome()}
		for key, value := range ws.GetEnvVars() {
			vars = append(vars, key+"="+value)
		}
		exported, stderr, code, err := cli.Run(ctx, ws.WorkDir(), nil, nil, nil, vars, "stack", "export", "--stack", "test")
		if err != nil {
			t.Fatalf("pulumi stack export: exit %d: %v\n%s", code, err, stderr)
		}
		mustNotContain(t, "pulumi stack export", exported, acme.token, globex.token)
		files, _ := filepath.Glob(filepath.Join(state, ".pulumi", "stacks", "*", "test.json"))
		equal(t, "state files", len(files), 1)
		raw, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		mustNotContain(t, "the state file", string(raw), acme.token, globex.token)
		// Both tokens were recorded, as secrets (not dropped, which would also pass the checks above):
		// the provider's token input is an encrypted envelope, which decrypts to the token.
		decrypted, err := stack.Export(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "the default provider's token", providerInput(t, []byte(exported), "default_", "token")["4dabf18193072939515e22adb298388d"],
			any("1b47061264138c4ac30d75fd1eb44270"))
		equal(t, "the globex provider's token", providerInput(t, []byte(exported), "globex", "token")["4dabf18193072939515e22adb298388d"],
			any("1b47061264138c4ac30d75fd1eb44270"))
		equal(t, "the globex provider's token, decrypted", providerInput(t, decrypted.Deployment, "globex", "token")["plaintext"],
			any(`"`+globex.token+`"`))
	})

	step("destroy archives every product it created on both services, gives the imported one back, renames the site back, forgets the task", func(t *testing.T) {
		ids := productIDs(t)
		outputs, err := stack.Outputs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		acme.clearRequests(t)
		globex.clearRequests(t)
		log := &terminal{}
		res, err := stack.Destroy(ctx, optdestroy.ProgressStreams(out, log), optdestroy.ErrorProgressStreams(out, log), optdestroy.Color("never"))
		if err != nil {
			t.Fatalf("destroy: %v", err)
		}
		// The stack, 5 products, the site, the task and the explicit provider.
		equal(t, "resource changes", *res.Summary.ResourceChanges, map[string]int{"delete": 9})
		statuses := map[string]string{}
		for name, id := range ids {
			sim := acme
			if name == "globex-plan" {
				sim = globex
			}
			statuses[name] = sim.products(t)[id].Status
		}
		// "from-ui" was made in the admin UI and imported, not created by the stack: given back as found (it changed none of its fields).
		equal(t, "statuses after destroy", statuses, map[string]string{
			"pro-plan": "archived", "legacy-plan": "archived", "enterprise-plan": "archived", "from-ui": "draft", "globex-plan": "archived",
		})
		renames := acme.requests(t, "sites.update")
		equal(t, "site renames", len(renames), 1)
		name, _ := json.Marshal(map[string]any{"name": outputs["siteOriginalName"].Value})
		equal(t, "the rename back", [2]string{renames[0].Path, jsonOf(t, renames[0].Body)},
			[2]string{"/v1/sites/" + outputs["siteId"].Value.(string), string(name)})
		if !strings.Contains(log.String(), "was removed from the stack only; nothing sent. The API cannot delete tasks") {
			t.Fatalf("destroy does not say the task was only forgotten:\n%s", log.String())
		}
		exported, err := stack.Export(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var after struct {
			Resources []any `json:"resources"`
		}
		if err := json.Unmarshal(exported.Deployment, &after); err != nil {
			t.Fatal(err)
		}
		equal(t, "resources in state after destroy", len(after.Resources), 0)
		mustNotContain(t, "the CLI's output", out.String(), acme.token, globex.token)
	})

	report("scenario: %.1f s", time.Since(started).Seconds())
}

// providerInput is one input of the serviceapi provider whose name starts with name (the default
// provider is default_<version>), from a
// deployment (`pulumi stack export`'s JSON or its "deployment" part), as a secret envelope.
func providerInput(t *testing.T, deployment []byte, name, key string) map[string]any {
	t.Helper()
	var doc struct {
		Deployment json.RawMessage `json:"deployment"`
	}
	if err := json.Unmarshal(deployment, &doc); err == nil && doc.Deployment != nil {
		deployment = doc.Deployment
	}
	var d struct {
		Resources []struct {
			URN    string         `json:"urn"`
			Type   string         `json:"type"`
			Inputs map[string]any `json:"inputs"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(deployment, &d); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Resources {
		if strings.HasPrefix(r.Type, "pulumi:providers:serviceapi") && strings.Contains(r.URN, "pulumi:providers:serviceapi::"+name) {
			envelope, ok := r.Inputs[key].(map[string]any)
			if !ok {
				t.Fatalf("%s of %s is not a secret in state: %#v", key, r.URN, r.Inputs[key])
			}
			return envelope
		}
	}
	t.Fatalf("no serviceapi provider %s in the deployment", name)
	return nil
}
