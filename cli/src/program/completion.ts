import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/**
 * Shell completion for `cairn` (issue 26), written from the commander tree the command line
 * itself parses with, so that it offers exactly the commands, subcommands and options that
 * exist. Building the tree loads no command's implementation (each loads its code when it
 * runs), so printing a script is as quick as `cairn --help`.
 */
export const completionShells = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof completionShells)[number];

/** One word a shell may offer after a command path: a subcommand or an option. */
type Word = { readonly word: string; readonly description: string };

/** A command of the tree: its path after `cairn` (empty for `cairn` itself) and what may follow it. */
type Node = { readonly path: readonly string[]; readonly subcommands: readonly Word[]; readonly options: readonly Word[] };

function nodes(command: CommandUnknownOpts, path: readonly string[] = []): Node[] {
  const subcommands = command.commands.map((sub) => ({ word: sub.name(), description: sub.summary() || sub.description() }));
  // As the help lists them: the command's own options, --help, and --version on the program.
  const options = command
    .createHelp()
    .visibleOptions(command)
    .flatMap((o) => [o.long, o.short].filter((flag): flag is string => typeof flag === 'string').map((word) => ({ word, description: o.description })));
  return [{ path, subcommands, options: unique(options) }, ...command.commands.flatMap((sub) => nodes(sub, [...path, sub.name()]))];
}

function unique(words: readonly Word[]): Word[] {
  const seen = new Set<string>();
  return words.filter((w) => !seen.has(w.word) && seen.add(w.word));
}

const firstLine = (text: string) => (text.split('\n')[0] ?? '').trim();
/** Single-quoted for any of the three shells: `'` closes, an escaped quote, and opens again. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The completion script for `shell`, generated from the program's command tree. */
export function completionScript(shell: CompletionShell, program: CommandUnknownOpts): string {
  const tree = nodes(program);
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      return zshScript(tree);
    case 'fish':
      return fishScript(tree);
  }
}

/** A `case` on the command path, one branch per command, with `body` for each. */
const caseOnPath = (tree: readonly Node[], body: (node: Node) => string) => tree.map((node) => `    ${quoted(node.path.join(' '))}) ${body(node)} ;;`).join('\n');

function bashScript(tree: readonly Node[]): string {
  const commands = tree.filter((n) => n.path.length > 0).map((n) => quoted(n.path.join(' ')));
  return `# cairn completion for bash: source <(cairn completion bash)
_cairn_words() {
  case "$1" in
${caseOnPath(tree, (n) => `echo ${quoted([...n.subcommands, ...n.options].map((w) => w.word).join(' '))}`)}
  esac
}
_cairn() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="" next i
  # The command path: each word that names a subcommand of the path so far (options and their values are skipped).
  for ((i = 1; i < COMP_CWORD; i++)); do
    [[ "\${COMP_WORDS[i]}" == -* ]] && continue
    next="\${cmd:+$cmd }\${COMP_WORDS[i]}"
    case "$next" in
      ${commands.join('|')}) cmd="$next" ;;
    esac
  done
  COMPREPLY=($(compgen -W "$(_cairn_words "$cmd")" -- "$cur"))
}
complete -F _cairn cairn
`;
}

function zshScript(tree: readonly Node[]): string {
  const commands = tree.filter((n) => n.path.length > 0).map((n) => quoted(n.path.join(' ')));
  // _describe takes `word:description`; a colon of the word itself is escaped.
  const described = (n: Node) => [...n.subcommands, ...n.options].map((w) => quoted(`${w.word.replace(/:/g, '\\:')}:${firstLine(w.description)}`)).join(' ');
  return `#compdef cairn
# cairn completion for zsh: source <(cairn completion zsh)
_cairn() {
  local cmd="" next i
  local -a items
  for ((i = 2; i < CURRENT; i++)); do
    [[ "\${words[i]}" == -* ]] && continue
    next="\${cmd:+$cmd }\${words[i]}"
    case "$next" in
      ${commands.join('|')}) cmd="$next" ;;
    esac
  done
  case "$cmd" in
${caseOnPath(tree, (n) => `items=(${described(n)})`)}
  esac
  _describe -t commands cairn items
}
if [[ "$funcstack[1]" == _cairn ]]; then _cairn "$@"; else compdef _cairn cairn; fi
`;
}

function fishScript(tree: readonly Node[]): string {
  const lines = ['# cairn completion for fish: cairn completion fish | source', 'complete -c cairn -f'];
  for (const node of tree) {
    // Offered once the path was typed, and (for a group) before one of its subcommands was.
    const seen = node.path.map((name) => `__fish_seen_subcommand_from ${name}`);
    const none = node.subcommands.length > 0 ? [`not __fish_seen_subcommand_from ${node.subcommands.map((s) => s.word).join(' ')}`] : [];
    const atRoot = node.path.length === 0 ? ['__fish_use_subcommand'] : [];
    const condition = (parts: readonly string[]) => (parts.length > 0 ? ` -n ${quoted(parts.join('; and '))}` : '');
    for (const sub of node.subcommands) lines.push(`complete -c cairn${condition([...atRoot, ...seen, ...none])} -a ${quoted(sub.word)} -d ${quoted(firstLine(sub.description))}`);
    for (const option of node.options) {
      const flag = option.word.startsWith('--') ? `-l ${option.word.slice(2)}` : `-s ${option.word.slice(1)}`;
      lines.push(`complete -c cairn${condition([...(node.path.length === 0 ? ['__fish_use_subcommand'] : seen), ...none])} ${flag} -d ${quoted(firstLine(option.description))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
