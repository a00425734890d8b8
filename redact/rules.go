package redact

import (
	"bytes"
	"regexp"
	"sync"
)

// Rule describes one kind of secret. The built-in rules are listed by
// Rules; user rules are added with Config.Extra.
type Rule struct {
	// ID names the rule in replacements, reports and configuration.
	ID string
	// Description says what the rule finds.
	Description string
	// Keywords are the lower-case strings of which at least one must occur
	// in the input before the rule is evaluated (empty: a dedicated digit
	// scan drives the rule instead).
	Keywords []string
	// Pattern documents what is matched and which checks are applied.
	Pattern string
}

// matcher is the compiled form of one or more rules sharing keywords. check
// is called for each keyword hit and appends findings to f.
type matcher struct {
	rules    []string // rule ids this matcher can produce
	keywords []string
	check    func(r *Redactor, b []byte, h hit, f []Finding) []Finding
	// rawOK, when set, tells from a hit in a raw JSON string body (escapes
	// not decoded) whether check could find anything at that hit once the
	// string is decoded: false only when it certainly cannot. JSONLine
	// does not decode and search a string whose hits all fail it.
	rawOK func(b []byte, h hit) bool
}

// literalAlnumBefore reports whether the byte before b[i] in a raw JSON
// string body is an ASCII letter or digit written literally (not the end
// of an escape sequence, which is at most 6 bytes and starts with a
// backslash), so that the decoded text has the same alphanumeric byte
// before the hit.
func literalAlnumBefore(b []byte, i int) bool {
	if i == 0 || !isAlnum(b[i-1]) {
		return false
	}
	return bytes.IndexByte(b[max(0, i-6):i], '\\') < 0
}

// tokenSpec is a fixed-prefix token: prefix, then a body of bytes in cs of
// length within [min, max], delimited on both sides.
type tokenSpec struct {
	prefix     string
	cs         *charset
	min, max   int
	minEntropy float64
	// validate, when set, is an extra check on the body.
	validate func(body []byte) bool
}

// tokenMatcher builds a matcher for prefixed tokens; the keyword of each
// spec is its lower-cased prefix, and the prefix must match exactly
// (case-sensitively).
func tokenMatcher(id string, specs ...tokenSpec) matcher {
	m := matcher{rules: []string{id}}
	bySpec := map[string][]tokenSpec{}
	for _, s := range specs {
		kw := string(bytes.ToLower([]byte(s.prefix)))
		if _, ok := bySpec[kw]; !ok {
			m.keywords = append(m.keywords, kw)
		}
		bySpec[kw] = append(bySpec[kw], s)
	}
	m.check = func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
		if h.start > 0 && isAlnum(b[h.start-1]) {
			return f
		}
		kw := b[h.start:h.end]
		for _, s := range bySpec[string(bytes.ToLower(kw))] {
			if string(kw) != s.prefix {
				continue
			}
			end := scanSet(b, h.end, s.cs, s.max+1)
			n := end - h.end
			if n < s.min || n > s.max {
				continue
			}
			body := b[h.end:end]
			if s.minEntropy > 0 && !randomLooking(body, s.minEntropy) {
				continue
			}
			if s.validate != nil && !s.validate(body) {
				continue
			}
			return append(f, Finding{RuleID: id, Start: h.start, End: end})
		}
		return f
	}
	// check needs the prefix exactly (its bytes have no escapes: keywords
	// hold no backslash) and no letter or digit before it.
	m.rawOK = func(b []byte, h hit) bool {
		if literalAlnumBefore(b, h.start) {
			return false
		}
		kw := b[h.start:h.end]
		for _, s := range specs {
			if string(kw) == s.prefix {
				return true
			}
		}
		return false
	}
	return m
}

// regexMatcher runs re on a window around each keyword hit. If re has a
// capture group, group 1 is the secret; otherwise the whole match.
func regexMatcher(id string, keywords []string, re func() *regexp.Regexp, before, after int, validate func([]byte) bool) matcher {
	return matcher{
		rules:    []string{id},
		keywords: keywords,
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			ws, we := max(h.start-before, 0), min(h.end+after, len(b))
			w := b[ws:we]
			for _, m := range re().FindAllSubmatchIndex(w, -1) {
				s, e := m[0], m[1]
				if len(m) >= 4 && m[2] >= 0 {
					s, e = m[2], m[3]
				}
				// The match must involve this keyword hit.
				if ws+m[1] < h.start || ws+m[0] > h.end {
					continue
				}
				if e <= s {
					continue
				}
				if validate != nil && !validate(w[s:e]) {
					continue
				}
				f = append(f, Finding{RuleID: id, Start: ws + s, End: ws + e})
			}
			return f
		},
	}
}

func notExample(v []byte) bool { return !hasExampleMarker(v) && !isPlaceholder(v) }

// builtinRules documents every built-in rule; builtinMatchers implements
// them. Keep the two in the same order as docs/REDACTION.md.
var builtinRules = []Rule{
	{"aws-access-key-id", "AWS access key id", []string{"akia", "asia", "abia", "acca"}, "`(AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`, delimited; skips ids containing EXAMPLE"},
	{"aws-secret-access-key", "AWS secret access key", []string{"aws_secret", "secret_access_key", "secretaccesskey", "aws-secret"}, "assignment to a key naming an AWS secret access key; value is 40 bytes of `[A-Za-z0-9/+=]`, entropy ≥ 3.5, not an example"},
	{"gcp-service-account", "GCP service-account `private_key_id` (the key itself is caught by private-key)", []string{"private_key_id"}, "`\"private_key_id\": \"<40 hex>\"`"},
	{"azure-storage-key", "Azure storage account / Service Bus shared access keys and connection strings", []string{"accountkey=", "sharedaccesskey="}, "`AccountKey=` or `SharedAccessKey=` followed by ≥ 40 base64 bytes"},
	{"azure-sas-token", "Azure shared access signature", []string{"sig="}, "`sv=…&…sig=<≥ 40 url-encoded base64>` (a `sv=` parameter must precede)"},
	{"digitalocean-token", "DigitalOcean personal, OAuth and refresh tokens", []string{"dop_v1_", "doo_v1_", "dor_v1_"}, "`do[por]_v1_[a-f0-9]{64}`"},
	{"databricks-token", "Databricks personal access token", []string{"dapi"}, "`dapi[a-f0-9]{32}(-\\d)?`"},
	{"vault-token", "HashiCorp Vault service, batch and recovery tokens", []string{"hvs.", "hvb.", "hvr."}, "`hv[sbr]\\.[A-Za-z0-9_-]{24,}`"},
	{"github-pat", "GitHub classic personal access token", []string{"ghp_"}, "`ghp_[A-Za-z0-9]{36}`"},
	{"github-fine-grained-pat", "GitHub fine-grained personal access token", []string{"github_pat_"}, "`github_pat_[A-Za-z0-9_]{82}`"},
	{"github-oauth", "GitHub OAuth access token", []string{"gho_"}, "`gho_[A-Za-z0-9]{36}`"},
	{"github-app-token", "GitHub App user-to-server and server-to-server tokens", []string{"ghu_", "ghs_"}, "`gh[us]_[A-Za-z0-9]{36}`"},
	{"github-refresh-token", "GitHub refresh token", []string{"ghr_"}, "`ghr_[A-Za-z0-9]{36,76}`"},
	{"gitlab-token", "GitLab personal, deploy, runner, trigger, OAuth and CI tokens", []string{"glpat-", "gldt-", "glrt-", "glptt-", "gloas-", "glcbt-", "glsoat-", "glft-"}, "`gl(pat|dt|rt|ptt|oas|cbt|soat|ft)-[A-Za-z0-9_-]{20,64}`"},
	{"npm-token", "npm access token", []string{"npm_"}, "`npm_[A-Za-z0-9]{36}`"},
	{"pypi-token", "PyPI upload token", []string{"pypi-ageichlwas5vcmc"}, "`pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`"},
	{"anthropic-api-key", "Anthropic API, admin and OAuth keys", []string{"sk-ant-"}, "`sk-ant-[a-z]+\\d*-[A-Za-z0-9_-]{32,}`"},
	{"openai-api-key", "OpenAI legacy, project, service-account and admin keys", []string{"t3blbkfj", "sk-proj-", "sk-svcacct-", "sk-admin-"}, "`sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}` or `sk-(proj|svcacct|admin)-[A-Za-z0-9_-]{40,}`"},
	{"huggingface-token", "Hugging Face access and organization tokens", []string{"hf_", "api_org_"}, "`hf_[A-Za-z0-9]{34}` / `api_org_[A-Za-z0-9]{34}`, entropy ≥ 3.5"},
	{"google-api-key", "Google API key", []string{"aiza"}, "`AIza[A-Za-z0-9_-]{35}`"},
	{"stripe-secret-key", "Stripe secret keys (live and test) and webhook secrets", []string{"sk_live_", "sk_test_", "whsec_"}, "`sk_(live|test)_[A-Za-z0-9]{24,247}`, `whsec_[A-Za-z0-9]{32,}`"},
	{"stripe-restricted-key", "Stripe restricted keys (live and test)", []string{"rk_live_", "rk_test_"}, "`rk_(live|test)_[A-Za-z0-9]{24,247}`"},
	{"shopify-token", "Shopify access, custom-app, private-app tokens and shared secrets", []string{"shpat_", "shpca_", "shppa_", "shpss_"}, "`shp(at|ca|pa|ss)_[a-fA-F0-9]{32}`"},
	{"slack-token", "Slack bot, user, app, refresh and configuration tokens", []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xoxe.", "xapp-"}, "`xox[bparse][-.][A-Za-z0-9-]{10,250}`, `xapp-[A-Za-z0-9-]{10,250}`, entropy ≥ 3"},
	{"slack-webhook", "Slack incoming webhook and workflow URLs", []string{"hooks.slack.com"}, "`hooks.slack.com/(services|workflows|triggers)/[A-Za-z0-9+/]{20,}` (the path is redacted)"},
	{"discord-webhook", "Discord webhook URL", []string{"discord.com", "discordapp.com"}, "`discord(app)?.com/api/webhooks/\\d+/[A-Za-z0-9_-]{60,}` (id and token redacted)"},
	{"discord-bot-token", "Discord bot token", []string{"discord"}, "assignment to a key containing `discord` whose value is `[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}`"},
	{"telegram-bot-token", "Telegram bot token", []string{":aa"}, "`\\d{8,10}:AA[A-Za-z0-9_-]{33}`"},
	{"sendgrid-api-key", "SendGrid API key", []string{"sg."}, "`SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}`"},
	{"twilio-api-key", "Twilio API key SID and auth token", []string{"sk", "twilio"}, "`SK[0-9a-f]{32}`; 32 hex assigned to a key containing `twilio`"},
	{"mailgun-api-key", "Mailgun API key", []string{"key-", "mailgun"}, "`key-[a-f0-9]{32}`; `[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}` assigned to a key containing `mailgun`"},
	{"linear-api-key", "Linear API key", []string{"lin_api_"}, "`lin_api_[A-Za-z0-9]{40}`"},
	{"datadog-api-key", "Datadog API and application keys", []string{"datadog", "dd_api", "dd_app", "dd-api", "dd-app"}, "32 or 40 lower-case hex assigned to a key containing `datadog`, `dd_api` or `dd_app`"},
	{"jwt", "JSON Web Token", []string{"eyj"}, "`eyJ…\\.eyJ…\\.…` (three base64url segments, signature ≥ 8 bytes) whose header decodes to JSON with `alg` or `typ`"},
	{"authorization-header", "HTTP Authorization header credentials (Bearer, Basic, token)", []string{"authorization", "bearer"}, "`Authorization: (Bearer|Basic|Token|token) <credential>` and `Bearer <credential>`; credential ≥ 8 bytes of `[A-Za-z0-9._~+/=-]`, not a placeholder, entropy ≥ 2.5"},
	{"private-key", "PEM private keys (RSA, EC, DSA, PKCS#8, encrypted, OpenSSH, PGP)", []string{"-----begin"}, "`-----BEGIN <…>PRIVATE KEY[ BLOCK]-----` through the matching `-----END …-----`, whatever the newlines (real, `\\n`, `\\\\n`); a block without END is redacted to the end of its body"},
	{"age-secret-key", "age encryption secret key", []string{"age-secret-key-1"}, "`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`"},
	{"url-password", "password in a URL's user info", []string{"://"}, "`scheme://user:<password>@host` (only the password is redacted); not a placeholder"},
	{"database-connection-string", "password in a database connection URL", []string{"://"}, "as url-password for postgres, mysql, mariadb, mongodb(+srv), redis(s), amqp(s), mssql, sqlserver, clickhouse, cockroachdb, jdbc:… schemes"},
	{"generic-password", "password assigned in code, config, .env, shell, JSON, YAML, TOML, query strings", []string{"password", "passwd", "passphrase", "pwd"}, "`<key containing password>` then `=`, `:`, `:=`, `=>` or (flags) a space, then a quoted or bare value; value ≥ 6 bytes, not a placeholder, not a variable/function reference"},
	{"generic-secret", "secret assigned in code or config (client_secret, secret_key, …)", []string{"secret"}, "as generic-password; value ≥ 10 bytes, contains a digit or symbol, entropy ≥ 3"},
	{"generic-token", "token assigned in code or config (access_token, auth_token, …)", []string{"token"}, "as generic-secret"},
	{"generic-api-key", "API key assigned in code or config (api_key, apikey, x-api-key, access_key, …)", []string{"api_key", "apikey", "api-key", "access_key", "accesskey", "auth_key", "private_key"}, "as generic-secret"},
	{"credit-card", "payment card number", nil, "13–19 digits (optionally grouped by single spaces or dashes) with a Visa, Mastercard, Amex, Discover, JCB or Diners prefix and a valid Luhn check digit"},
	{"us-ssn", "US social security number", nil, "`\\d{3}-\\d{2}-\\d{4}` with a valid area (not 000, 666, 9xx), group (not 00) and serial (not 0000)"},
}

// Rules returns the built-in rules, in documentation order.
func Rules() []Rule {
	out := make([]Rule, len(builtinRules))
	for i, r := range builtinRules {
		out[i] = r
		out[i].Keywords = append([]string(nil), r.Keywords...)
	}
	return out
}

// The rules' regular expressions are compiled on first use, each on its
// own, not at package init nor when a Redactor is built: some are large
// (reAzureSAS's bounded repetition), and most are only needed when a rare
// keyword (a Slack or Discord webhook, an Azure key) shows up, so a save
// that never meets one does not pay for them.
var (
	reSlackHook   = lazyRegexp(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{20,})`)
	reDiscordHook = lazyRegexp(`(?i)discord(?:app)?\.com/api/webhooks/([0-9]{5,30}/[A-Za-z0-9_-]{60,})`)
	reAzureKey    = lazyRegexp(`(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,100}={0,2})`)
	reAzureSAS    = lazyRegexp(`sv=\d{4}-\d{2}-\d{2}[^\s"'<>]{0,300}?[?&]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})`)
	reTelegram    = lazyRegexp(`(?:^|[^0-9])([0-9]{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|$)`)
	reDiscordBot  = lazyRegexp(`^[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}$`)
	reMailgunNew  = lazyRegexp(`^[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}$`)
	reCodeRef     = lazyRegexp(`^[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|->|::)[A-Za-z_$][A-Za-z0-9_$]*)*$`)
)

// lazyRegexp returns expr compiled on the first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func builtinMatchers() []matcher {
	ms := []matcher{
		tokenMatcher("aws-access-key-id",
			tokenSpec{prefix: "AKIA", cs: csUpperNum, min: 16, max: 16, minEntropy: 2.5},
			tokenSpec{prefix: "ASIA", cs: csUpperNum, min: 16, max: 16, minEntropy: 2.5},
			tokenSpec{prefix: "ABIA", cs: csUpperNum, min: 16, max: 16, minEntropy: 2.5},
			tokenSpec{prefix: "ACCA", cs: csUpperNum, min: 16, max: 16, minEntropy: 2.5}),
		regexMatcher("azure-storage-key", []string{"accountkey=", "sharedaccesskey="}, reAzureKey, 20, 110, func(v []byte) bool { return entropy(v) >= 4 && notExample(v) }),
		regexMatcher("azure-sas-token", []string{"sig="}, reAzureSAS, 320, 200, func(v []byte) bool { return entropy(v) >= 3.5 }),
		tokenMatcher("digitalocean-token",
			tokenSpec{prefix: "dop_v1_", cs: csHexLower, min: 64, max: 64, minEntropy: 3},
			tokenSpec{prefix: "doo_v1_", cs: csHexLower, min: 64, max: 64, minEntropy: 3},
			tokenSpec{prefix: "dor_v1_", cs: csHexLower, min: 64, max: 64, minEntropy: 3}),
		databricksMatcher(),
		tokenMatcher("vault-token",
			tokenSpec{prefix: "hvs.", cs: csB64URL, min: 24, max: 200, minEntropy: 3.5},
			tokenSpec{prefix: "hvb.", cs: csB64URL, min: 24, max: 200, minEntropy: 3.5},
			tokenSpec{prefix: "hvr.", cs: csB64URL, min: 24, max: 200, minEntropy: 3.5}),
		tokenMatcher("github-pat", tokenSpec{prefix: "ghp_", cs: csAlnum, min: 36, max: 36, minEntropy: 3.5}),
		tokenMatcher("github-fine-grained-pat", tokenSpec{prefix: "github_pat_", cs: csAlnumUS, min: 82, max: 82, minEntropy: 3.5}),
		tokenMatcher("github-oauth", tokenSpec{prefix: "gho_", cs: csAlnum, min: 36, max: 36, minEntropy: 3.5}),
		tokenMatcher("github-app-token",
			tokenSpec{prefix: "ghu_", cs: csAlnum, min: 36, max: 36, minEntropy: 3.5},
			tokenSpec{prefix: "ghs_", cs: csAlnum, min: 36, max: 36, minEntropy: 3.5}),
		tokenMatcher("github-refresh-token", tokenSpec{prefix: "ghr_", cs: csAlnum, min: 36, max: 76, minEntropy: 3.5}),
		tokenMatcher("gitlab-token",
			tokenSpec{prefix: "glpat-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "gldt-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "glrt-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "glptt-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "gloas-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "glcbt-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "glsoat-", cs: csB64URL, min: 20, max: 64, minEntropy: 3},
			tokenSpec{prefix: "glft-", cs: csB64URL, min: 20, max: 64, minEntropy: 3}),
		tokenMatcher("npm-token", tokenSpec{prefix: "npm_", cs: csAlnum, min: 36, max: 36, minEntropy: 3.5}),
		tokenMatcher("pypi-token", tokenSpec{prefix: "pypi-AgEIcHlwaS5vcmc", cs: csB64URL, min: 50, max: 1000, minEntropy: 3.5}),
		anthropicMatcher(),
		openaiMatcher(),
		tokenMatcher("huggingface-token",
			tokenSpec{prefix: "hf_", cs: csAlnum, min: 34, max: 34, minEntropy: 3.5},
			tokenSpec{prefix: "api_org_", cs: csAlnum, min: 34, max: 34, minEntropy: 3.5}),
		tokenMatcher("google-api-key", tokenSpec{prefix: "AIza", cs: csB64URL, min: 35, max: 35, minEntropy: 3.5}),
		tokenMatcher("stripe-secret-key",
			tokenSpec{prefix: "sk_live_", cs: csAlnum, min: 24, max: 247, minEntropy: 3.5},
			tokenSpec{prefix: "sk_test_", cs: csAlnum, min: 24, max: 247, minEntropy: 3.5},
			tokenSpec{prefix: "whsec_", cs: csB64, min: 32, max: 100, minEntropy: 3.5}),
		tokenMatcher("stripe-restricted-key",
			tokenSpec{prefix: "rk_live_", cs: csAlnum, min: 24, max: 247, minEntropy: 3.5},
			tokenSpec{prefix: "rk_test_", cs: csAlnum, min: 24, max: 247, minEntropy: 3.5}),
		tokenMatcher("shopify-token",
			tokenSpec{prefix: "shpat_", cs: csHex, min: 32, max: 32, minEntropy: 3},
			tokenSpec{prefix: "shpca_", cs: csHex, min: 32, max: 32, minEntropy: 3},
			tokenSpec{prefix: "shppa_", cs: csHex, min: 32, max: 32, minEntropy: 3},
			tokenSpec{prefix: "shpss_", cs: csHex, min: 32, max: 32, minEntropy: 3}),
		slackMatcher(),
		regexMatcher("slack-webhook", []string{"hooks.slack.com"}, reSlackHook, 0, 200, nil),
		regexMatcher("discord-webhook", []string{"discord.com", "discordapp.com"}, reDiscordHook, 0, 200, nil),
		regexMatcher("telegram-bot-token", []string{":aa"}, reTelegram, 12, 37, func(v []byte) bool { return entropy(v) >= 3.5 }),
		sendgridMatcher(),
		tokenMatcher("twilio-api-key", tokenSpec{prefix: "SK", cs: csHexLower, min: 32, max: 32, minEntropy: 3}),
		tokenMatcher("mailgun-api-key", tokenSpec{prefix: "key-", cs: csHexLower, min: 32, max: 32, minEntropy: 3}),
		tokenMatcher("linear-api-key", tokenSpec{prefix: "lin_api_", cs: csAlnum, min: 40, max: 40, minEntropy: 3.5}),
		jwtMatcher(),
		authHeaderMatcher(),
		pemMatcher(),
		tokenMatcher("age-secret-key", tokenSpec{prefix: "AGE-SECRET-KEY-1", cs: csBech32, min: 58, max: 58, minEntropy: 3.5}),
		urlMatcher(),
		assignmentMatcher(),
	}
	return ms
}

func databricksMatcher() matcher {
	return matcher{
		rules:    []string{"databricks-token"},
		keywords: []string{"dapi"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			if string(b[h.start:h.end]) != "dapi" || (h.start > 0 && isAlnum(b[h.start-1])) {
				return f
			}
			end := scanSet(b, h.end, csHexLower, 33)
			if end-h.end != 32 || (end < len(b) && isAlnum(b[end])) || entropy(b[h.end:end]) < 3 {
				return f
			}
			if end+1 < len(b) && b[end] == '-' && csDigit[b[end+1]] {
				end += 2
			}
			return append(f, Finding{RuleID: "databricks-token", Start: h.start, End: end})
		},
	}
}

func anthropicMatcher() matcher {
	return matcher{
		rules:    []string{"anthropic-api-key"},
		keywords: []string{"sk-ant-"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			if string(b[h.start:h.end]) != "sk-ant-" || (h.start > 0 && isAlnum(b[h.start-1])) {
				return f
			}
			end := scanSet(b, h.end, csB64URL, 300)
			body := b[h.end:end]
			// body is "<kind><version>-<secret>", e.g. api03-…
			dash := bytes.IndexByte(body, '-')
			if dash < 2 || dash > 12 || len(body)-dash-1 < 32 || !randomLooking(body[dash+1:], 3.5) {
				return f
			}
			return append(f, Finding{RuleID: "anthropic-api-key", Start: h.start, End: end})
		},
	}
}

func openaiMatcher() matcher {
	return matcher{
		rules:    []string{"openai-api-key"},
		keywords: []string{"t3blbkfj", "sk-proj-", "sk-svcacct-", "sk-admin-"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			kw := string(b[h.start:h.end])
			if kw == "T3BlbkFJ" {
				// legacy: sk-<20>T3BlbkFJ<20>, optionally sk-proj-… around it
				s := h.start
				for s > 0 && csB64URL[b[s-1]] && h.start-s <= 200 {
					s--
				}
				if s+3 > h.start || string(b[s:s+3]) != "sk-" || (s > 0 && isAlnum(b[s-1])) {
					return f
				}
				if bytes.HasPrefix(b[s:], []byte("sk-proj-")) || bytes.HasPrefix(b[s:], []byte("sk-svcacct-")) || bytes.HasPrefix(b[s:], []byte("sk-admin-")) {
					return f // the prefixed form is reported from its own keyword
				}
				end := scanSet(b, h.end, csB64URL, 200)
				if h.start-s-3 < 20 || end-h.end < 20 || !randomLooking(b[s+3:end], 3.5) {
					return f
				}
				return append(f, Finding{RuleID: "openai-api-key", Start: s, End: end})
			}
			switch kw {
			case "sk-proj-", "sk-svcacct-", "sk-admin-":
			default:
				return f
			}
			if h.start > 0 && isAlnum(b[h.start-1]) {
				return f
			}
			end := scanSet(b, h.end, csB64URL, 400)
			if end-h.end < 40 || !randomLooking(b[h.end:end], 3.5) {
				return f
			}
			return append(f, Finding{RuleID: "openai-api-key", Start: h.start, End: end})
		},
	}
}

var csSlack = newCharset("A-Za-z0-9-")

func slackMatcher() matcher {
	return matcher{
		rules:    []string{"slack-token"},
		keywords: []string{"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xoxe.", "xapp-"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			kw := b[h.start:h.end]
			if !bytes.Equal(kw, bytes.ToLower(kw)) || (h.start > 0 && isAlnum(b[h.start-1])) {
				return f
			}
			end := h.end
			// xoxe.xoxp-1-… refresh tokens
			if bytes.Equal(kw, []byte("xoxe.")) {
				if !bytes.HasPrefix(b[end:], []byte("xox")) {
					return f
				}
				end += 3
			}
			e := scanSet(b, end, csSlack, 251)
			if e-end < 10 || e-end > 250 || !randomLooking(b[end:e], 3) {
				return f
			}
			lower, upper, digit, _ := classes(b[end:e])
			if !digit || !(lower || upper) {
				return f
			}
			return append(f, Finding{RuleID: "slack-token", Start: h.start, End: e})
		},
	}
}

func sendgridMatcher() matcher {
	return matcher{
		rules:    []string{"sendgrid-api-key"},
		keywords: []string{"sg."},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			if string(b[h.start:h.end]) != "SG." || (h.start > 0 && isAlnum(b[h.start-1])) {
				return f
			}
			e1 := scanSet(b, h.end, csB64URL, 23)
			if e1-h.end != 22 || e1 >= len(b) || b[e1] != '.' {
				return f
			}
			e2 := scanSet(b, e1+1, csB64URL, 44)
			if e2-e1-1 != 43 || !randomLooking(b[h.end:e2], 3.5) {
				return f
			}
			return append(f, Finding{RuleID: "sendgrid-api-key", Start: h.start, End: e2})
		},
		// ("msg." and the like: lower case, or a letter before.)
		rawOK: func(b []byte, h hit) bool {
			return string(b[h.start:h.end]) == "SG." && !literalAlnumBefore(b, h.start)
		},
	}
}

func jwtMatcher() matcher {
	return matcher{
		rules:    []string{"jwt"},
		keywords: []string{"eyj"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			if string(b[h.start:h.end]) != "eyJ" || (h.start > 0 && csB64URL[b[h.start-1]]) {
				return f
			}
			e1 := scanSet(b, h.start, csB64URL, 4096)
			if e1-h.start < 10 || e1 >= len(b) || b[e1] != '.' {
				return f
			}
			if !bytes.HasPrefix(b[e1+1:], []byte("eyJ")) {
				return f
			}
			e2 := scanSet(b, e1+1, csB64URL, 65536)
			if e2-e1-1 < 10 || e2 >= len(b) || b[e2] != '.' {
				return f
			}
			e3 := scanSet(b, e2+1, csB64URL, 4096)
			if e3-e2-1 < 8 || !jwtHeaderOK(b[h.start:e1]) {
				return f
			}
			return append(f, Finding{RuleID: "jwt", Start: h.start, End: e3})
		},
	}
}

// authHeaderMatcher finds "Authorization: <scheme> <credential>" and
// "Bearer <credential>".
func authHeaderMatcher() matcher {
	return matcher{
		rules:    []string{"authorization-header"},
		keywords: []string{"authorization", "bearer"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			if h.start > 0 && isAlnum(b[h.start-1]) {
				return f
			}
			i := h.end
			if h.end-h.start == len("authorization") {
				// optional closing quote(s), then ':' or '='
				i = skipQuotes(b, i)
				i = skipSpaces(b, i)
				if i >= len(b) || (b[i] != ':' && b[i] != '=') {
					return f
				}
				i = skipSpaces(b, i+1)
				i = skipQuotes(b, i)
				// scheme word
				ws := i
				i = scanSet(b, i, csAlnum, 16)
				scheme := string(bytes.ToLower(b[ws:i]))
				switch scheme {
				case "bearer", "basic", "token", "digest", "apikey", "bot":
				default:
					return f
				}
				if scheme == "bearer" {
					return f // reported from the "bearer" keyword itself
				}
			}
			if i >= len(b) || b[i] != ' ' {
				return f
			}
			i = skipSpaces(b, i)
			end := scanSet(b, i, csBearer, 4096)
			v := b[i:end]
			if len(v) < 8 || isPlaceholder(v) || entropy(v) < 2.5 {
				return f
			}
			lower, upper, digit, _ := classes(v)
			if !digit && !(lower && upper) {
				return f
			}
			return append(f, Finding{RuleID: "authorization-header", Start: i, End: end})
		},
	}
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// skipQuotes skips ", ', ` and their JSON-escaped forms \" and \\\".
func skipQuotes(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case '"', '\'', '`':
			i++
			continue
		case '\\':
			j := i
			for j < len(b) && b[j] == '\\' {
				j++
			}
			if j < len(b) && (b[j] == '"' || b[j] == '\'') {
				i = j + 1
				continue
			}
		}
		return i
	}
	return i
}

var pemBodyStop = newCharset("\"'<>`")

func pemMatcher() matcher {
	begin := []byte("-----BEGIN ")
	return matcher{
		rules:    []string{"private-key"},
		keywords: []string{"-----begin"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			if !bytes.HasPrefix(b[h.start:], begin) {
				return f
			}
			ls := h.start + len(begin)
			le := ls
			for le < len(b) && le-ls < 64 && (b[le] >= 'A' && b[le] <= 'Z' || b[le] >= '0' && b[le] <= '9' || b[le] == ' ') {
				le++
			}
			label := b[ls:le]
			if !bytes.HasPrefix(b[le:], []byte("-----")) {
				return f
			}
			if !bytes.HasSuffix(label, []byte("PRIVATE KEY")) && !bytes.Equal(label, []byte("PGP PRIVATE KEY BLOCK")) {
				return f
			}
			bodyStart := le + 5
			endMarker := []byte("-----END " + string(label) + "-----")
			limit := min(bodyStart+1<<20, len(b))
			if k := bytes.Index(b[bodyStart:limit], endMarker); k >= 0 {
				return append(f, Finding{RuleID: "private-key", Start: h.start, End: bodyStart + k + len(endMarker)})
			}
			// Truncated block: redact the body up to the first quote or the
			// next BEGIN marker.
			e := bodyStart
			for e < limit && !pemBodyStop[b[e]] {
				if b[e] == '-' && bytes.HasPrefix(b[e:], []byte("-----")) {
					break
				}
				e++
			}
			return append(f, Finding{RuleID: "private-key", Start: h.start, End: e})
		},
	}
}

var dbSchemes = map[string]bool{
	"postgres": true, "postgresql": true, "mysql": true, "mariadb": true, "mongodb": true,
	"mongodb+srv": true, "redis": true, "rediss": true, "amqp": true, "amqps": true,
	"mssql": true, "sqlserver": true, "clickhouse": true, "cockroachdb": true, "oracle": true,
	"db2": true, "cassandra": true, "neo4j": true, "neo4j+s": true, "couchdb": true, "memcached": true,
}

var csUserinfoStop = newCharset("/@ \t\r\n\"'`<>\\[]{}")

func urlMatcher() matcher {
	return matcher{
		rules:    []string{"url-password", "database-connection-string"},
		keywords: []string{"://"},
		check: func(r *Redactor, b []byte, h hit, f []Finding) []Finding {
			ss := h.start
			for ss > 0 && h.start-ss < 32 && csURLScheme[b[ss-1]] {
				ss--
			}
			if ss == h.start {
				return f
			}
			scheme := string(bytes.ToLower(b[ss:h.start]))
			// user
			i := h.end
			limit := min(i+512, len(b))
			colon := -1
			for i < limit && !csUserinfoStop[b[i]] {
				if b[i] == ':' && colon < 0 {
					colon = i
				}
				i++
			}
			if colon < 0 || i >= limit || b[i] != '@' || i+1 >= len(b) || !(isAlnum(b[i+1]) || b[i+1] == '[') {
				return f
			}
			pw := b[colon+1 : i]
			if len(pw) < 3 || isURLPlaceholder(pw) {
				return f
			}
			id := "url-password"
			if dbSchemes[scheme] || bytes.HasPrefix(b[ss:h.start], []byte("jdbc:")) || hasSchemeSuffix(scheme) {
				id = "database-connection-string"
			}
			return append(f, Finding{RuleID: id, Start: colon + 1, End: i})
		},
	}
}

func hasSchemeSuffix(scheme string) bool {
	// jdbc:postgresql → the scheme scan stops at ':'; handle "x+y" forms.
	for s := range dbSchemes {
		if len(scheme) > len(s) && scheme[len(scheme)-len(s)-1] == '+' && scheme[len(scheme)-len(s):] == s {
			return true
		}
	}
	return false
}

func isURLPlaceholder(pw []byte) bool {
	switch string(bytes.ToLower(pw)) {
	case "pass", "password", "passwd", "pwd", "secret", "xxx", "****", "***", "changeme", "pw", "p", "token":
		return true
	}
	if pw[0] == '$' || pw[0] == '%' && !(len(pw) > 2 && csHex[pw[1]] && csHex[pw[2]]) {
		return true
	}
	return isPlaceholder(pw)
}
