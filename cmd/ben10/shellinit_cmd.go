package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newShellInitCmd builds `ben10 shell-init` (it has no flags of its own
// and writes to the command's output stream).
func newShellInitCmd(*globalOptions) *cobra.Command {
	shellInitCmd := &cobra.Command{
		Use:       "shell-init bash|zsh|fish",
		Short:     "Print shell code for the cd hook and the prompt's context status",
		Example:   "  eval \"$(ben10 shell-init bash)\"\n  ben10 shell-init fish | source",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, ok := shellInit[args[0]]
			if !ok {
				return fmt.Errorf("unsupported shell %q (use bash, zsh or fish)", args[0])
			}
			_, err := fmt.Fprint(cmd.OutOrStdout(), s)
			return err
		},
	}
	return shellInitCmd
}

// shellInit holds the PRD's shell integration ("Shell Integration"): a cd
// hook that exports CLAUDE_CONTEXT_DIR when a project has a context
// directory, and a prompt segment from `ben10 context status --brief`.
var shellInit = map[string]string{
	"bash": `# ben10 shell integration (bash): eval "$(ben10 shell-init bash)"
__ben10_cd_hook() {
  if [ -d ".claude/context" ]; then export CLAUDE_CONTEXT_DIR="$PWD"; else unset CLAUDE_CONTEXT_DIR; fi
}
cd() { builtin cd "$@" && __ben10_cd_hook; }
ben10_prompt_info() {
  if [ -f ".claude/context/current.ctx" ]; then printf '[ctx:%s] ' "$(ben10 context status --brief 2>/dev/null)"; fi
}
__ben10_cd_hook
case "$PS1" in *ben10_prompt_info*) ;; *) PS1='$(ben10_prompt_info)'"$PS1" ;; esac
`,
	"zsh": `# ben10 shell integration (zsh): eval "$(ben10 shell-init zsh)"
__ben10_cd_hook() {
  if [[ -d ".claude/context" ]]; then export CLAUDE_CONTEXT_DIR="$PWD"; else unset CLAUDE_CONTEXT_DIR; fi
}
autoload -Uz add-zsh-hook
add-zsh-hook chpwd __ben10_cd_hook
ben10_prompt_info() {
  if [[ -f ".claude/context/current.ctx" ]]; then print -n "[ctx:$(ben10 context status --brief 2>/dev/null)] "; fi
}
setopt PROMPT_SUBST
__ben10_cd_hook
[[ "$PROMPT" == *ben10_prompt_info* ]] || PROMPT='$(ben10_prompt_info)'"$PROMPT"
`,
	"fish": `# ben10 shell integration (fish): ben10 shell-init fish | source
function __ben10_cd_hook --on-variable PWD
  if test -d .claude/context; set -gx CLAUDE_CONTEXT_DIR $PWD; else; set -e CLAUDE_CONTEXT_DIR; end
end
function ben10_prompt_info
  if test -f .claude/context/current.ctx; printf '[ctx:%s] ' (ben10 context status --brief 2>/dev/null); end
end
__ben10_cd_hook
`,
}
