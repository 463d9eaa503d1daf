import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples } from '../program/define-command.ts';
import { completionScript, completionShells } from '../program/completion.ts';
import type { Runner } from '../program/program.ts';
import { PrintedOutput } from './printed-output.ts';

/**
 * `cairn completion bash|zsh|fish`: prints the shell's completion script, generated from the
 * program's own command tree (program/completion.ts), so it never offers a command or an
 * option that is not there. It opens nothing: the runner only prints what it answers.
 */
export function completionCommand(runner: Runner<NodeJS.ProcessEnv>, program: () => CommandUnknownOpts): CommandUnknownOpts {
  const command = new Command('completion')
    .summary('print a shell completion script (bash, zsh or fish)')
    .description(
      'Prints a script that completes cairn commands, subcommands and options in bash, zsh or fish, generated from this command line itself. Load it in the current shell, or from the shell startup file to have it in every shell:\n' +
        '  bash  source <(cairn completion bash)        (in ~/.bashrc)\n' +
        '  zsh   source <(cairn completion zsh)         (in ~/.zshrc, after compinit)\n' +
        '  fish  cairn completion fish | source         (in ~/.config/fish/config.fish)\n' +
        'It completes the command `cairn` (on the PATH, e.g. after npm link or a global install), not `npx cairn`.',
    )
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(completionShells))
    .addHelpText('after', examples('cairn completion bash > ~/.local/share/bash-completion/completions/cairn', 'cairn completion zsh > ~/.zsh/completions/_cairn', 'cairn completion fish > ~/.config/fish/completions/cairn.fish'));
  command.action(async (shell) => runner(async () => new PrintedOutput(completionScript(shell, program()))));
  return command;
}
