// Background swapper for the P1 race suite: until `<ws>/.stop` exists, turns
// the folder `<ws>/sub` into a symbolic link to the outside folder and back
// (four renames a round), then prints how many rounds it made.
const [ws] = Deno.args;
const sub = `${ws}/sub`, real = `${ws}/.sub-real`, link = `${ws}/.sub-link`;
let rounds = 0;
const pause = new Int32Array(new SharedArrayBuffer(4));
const kind = (p: string) => {
  try {
    return Deno.lstatSync(p).isSymlink ? "link" : "dir";
  } catch {
    return "none";
  }
};
function repair() {
  if (kind(sub) === "link") Deno.renameSync(sub, link);
  if (kind(real) === "dir") {
    if (kind(sub) === "dir") Deno.removeSync(sub, { recursive: true });
    Deno.renameSync(real, sub);
  }
}
for (;;) {
  if (rounds % 64 === 0) {
    try {
      Deno.lstatSync(`${ws}/.stop`);
      break;
    } catch {
      // keep swapping
    }
  }
  try {
    Deno.renameSync(sub, real);
    Deno.renameSync(link, sub);
    Deno.renameSync(sub, link);
    Deno.renameSync(real, sub);
    rounds++;
    // leave the real folder in place a moment now and then, so that some calls get through
    if (rounds % 4 === 0) Atomics.wait(pause, 0, 0, Math.random() * 0.5);
  } catch {
    // a tool made a folder at `sub` while it was away (Write creates parents): clear it, restore
    try {
      repair();
    } catch {
      // try again next round
    }
  }
}
console.log(rounds);
