package main

import "github.com/spf13/cobra"

// examples are the help examples of the commands whose definitions carry
// none (every command has at least one; TestEveryCommandHasAnExample).
// They are kept in one table so that they read as one set.
var examples = map[string]string{
	"ben10": `  ben10 hooks install            # set Ben10 up for Claude Code
  ben10 doctor                   # check that everything works
  ben10 status                   # what is saved for this project
  ben10 context compaction list  # snapshots taken before compactions`,
	"ben10 archive": `  ben10 archive inspect .claude/context/current.ctx
  ben10 archive verify --deep .claude/context/current.ctx`,
	"ben10 archive inspect": `  ben10 archive inspect .claude/context/current.ctx
  ben10 archive inspect --json snap.ctx`,
	"ben10 archive pack": `  ben10 archive pack --out notes.ctx conversation=session.jsonl
  ben10 archive pack --out secret.ctx --encrypt --passphrase-file ~/.ben10-pass conversation=session.jsonl`,
	"ben10 archive unpack": `  ben10 archive unpack notes.ctx --dir /tmp/notes`,
	"ben10 archive verify": `  ben10 archive verify .claude/context/current.ctx
  ben10 archive verify --deep --passphrase-file ~/.ben10-pass secret.ctx`,
	"ben10 context": `  ben10 context status
  ben10 context save --name before-refactor
  ben10 context restore --resume`,
	"ben10 context clear": `  ben10 context clear          # asks first; the context moves to history/
  ben10 context clear --yes`,
	"ben10 context compaction": `  ben10 context compaction list
  ben10 context compaction show 20260126-101500
  ben10 context compaction restore a1b2c3`,
	"ben10 context compaction delete": `  ben10 context compaction delete 20260126-101500   # asks first on a terminal
  ben10 context compaction delete a1b2c3 --yes`,
	"ben10 context compaction diff":   `  ben10 context compaction diff a1b2c3`,
	"ben10 context compaction export": `  ben10 context compaction export a1b2c3 ~/handoff/before-compact.ctx`,
	"ben10 context compaction extract": `  ben10 context compaction extract a1b2c3 --messages --range 1-40
  ben10 context compaction extract a1b2c3 --tools --tool Bash --out tools.jsonl
  ben10 context compaction extract a1b2c3 --files --glob 'src/**' --out /tmp/files`,
	"ben10 context compaction list": `  ben10 context compaction list
  ben10 context compaction list --verbose --json`,
	"ben10 context compaction pin":   `  ben10 context compaction pin a1b2c3   # never pruned`,
	"ben10 context compaction unpin": `  ben10 context compaction unpin a1b2c3`,
	"ben10 context compaction prune": `  ben10 context compaction prune        # asks first on a terminal
  ben10 context compaction prune --yes`,
	"ben10 context compaction restore": `  ben10 context compaction restore a1b2c3              # a resumable session: claude --resume <id>
  ben10 context compaction restore a1b2c3 --partial messages=1-40 --out early.md
  ben10 context compaction restore a1b2c3 --partial files='src/*.go'`,
	"ben10 context compaction search": `  ben10 context compaction search "connection refused"
  ben10 context compaction search --regex 'go test .*-race' --limit 20`,
	"ben10 context compaction show": `  ben10 context compaction show a1b2c3`,
	"ben10 context compaction snapshot": `  ben10 context compaction snapshot                     # the project's newest Claude Code session
  ben10 context compaction snapshot --transcript ~/.claude/projects/-home-me-app/1234.jsonl --force`,
	"ben10 context config": `  ben10 context config
  ben10 context config --json`,
	"ben10 context config set": `  ben10 context config set compaction_snapshots.retention_count 20
  ben10 context config set --user encryption.enabled true`,
	"ben10 context diff": `  ben10 context diff
  ben10 context diff --reconcile`,
	"ben10 context export": `  ben10 context export .claude/context/current.ctx --format markdown --out session.md
  ben10 context export snap.ctx --format jsonl --dir /tmp/raw`,
	"ben10 context inspect": `  ben10 context inspect .claude/context/current.ctx
  ben10 context inspect current.ctx --tools --json`,
	"ben10 context list": `  ben10 context list
  ben10 context list --json`,
	"ben10 context prune": `  ben10 context prune          # asks first on a terminal
  ben10 context prune --yes`,
	"ben10 context save": `  ben10 context save                                  # this project's newest session into current.ctx
  ben10 context save --name before-refactor
  ben10 context save --transcript ~/.codex/sessions/2026/01/26/rollout-x.jsonl --out codex.ctx`,
	"ben10 context status": `  ben10 context status
  ben10 context status --brief`,
	"ben10 hooks": `  ben10 hooks install --dry-run
  ben10 hooks status`,
	"ben10 internal":                    `  ben10 internal render-hook-output < hook-output.json`,
	"ben10 internal work":               `  ben10 internal work`,
	"ben10 internal render-hook-output": `  echo '{"hookSpecificOutput":{"additionalContext":"hi"}}' | ben10 internal render-hook-output`,
	"ben10 statusline":                  `  ben10 statusline   # in ~/.claude/settings.json: "statusLine": {"type": "command", "command": "ben10 statusline"}`,
	"ben10 watch": `  ben10 watch --once --dry-run
  ben10 watch --llm codex,gemini --verbose
  ben10 watch --status`,
	"ben10 view": `  ben10 view                                   # the project's current context → <session>.html
  ben10 view a1b2c3 --open                     # a snapshot, opened in the browser
  ben10 view checkpoint/2 -o cp2.html
  ben10 view ~/.codex/sessions/2026/01/26/rollout-x.jsonl -o codex.html`,
	"ben10 serve": `  ben10 serve                                  # http://127.0.0.1:8710, prints the login link
  ben10 serve --project ~/src/app --project ~/src/lib --addr 127.0.0.1:0`,
	"ben10 remote": `  ben10 remote add team s3://ctx-bucket/acme --endpoint https://minio.acme.internal
  ben10 remote key create team      # once per team; share it with remote key export
  ben10 remote push team && ben10 remote pull team`,
	"ben10 remote add": `  ben10 remote add team s3://ctx-bucket/acme                      # Amazon S3, $AWS_REGION
  ben10 remote add lab s3://ctx/ben10 --endpoint http://127.0.0.1:9000 --region us-east-1`,
	"ben10 remote list":   `  ben10 remote list --json`,
	"ben10 remote remove": `  ben10 remote remove lab   # forgets the remote; the bucket is left as it is`,
	"ben10 remote key": `  ben10 remote key create team
  ben10 remote key export team > team.key   # hand it over privately
  ben10 remote key import team team.key`,
	"ben10 remote key create": `  ben10 remote key create team`,
	"ben10 remote key export": `  ben10 remote key export team > team.key`,
	"ben10 remote key import": `  ben10 remote key import team team.key
  ben10 remote key import team - < team.key`,
	"ben10 remote push": `  ben10 remote push team                  # this project
  ben10 remote push team --since 7d
  ben10 remote push team --all            # every project pushed from here before`,
	"ben10 remote pull": `  ben10 remote pull team
  ben10 remote pull team --session 1f3a   # one session
  ben10 remote pull team --remote-project github.com/acme/app`,
	"ben10 remote ls": `  ben10 remote ls team
  ben10 remote ls team --all --json`,
	"ben10 remote prune": `  ben10 remote prune team --dry-run
  ben10 remote prune team --grace 72h`,
	"ben10 watch install":   `  ben10 watch install`,
	"ben10 watch uninstall": `  ben10 watch uninstall`,
}

// addExamples gives every command of the tree without an example its
// entry of examples.
func addExamples(c *cobra.Command) {
	if c.Example == "" {
		c.Example = examples[c.CommandPath()]
	}
	for _, sub := range c.Commands() {
		addExamples(sub)
	}
}
