/** Every spelling of `digits` the scan must see through (normalised to the same digits). */
export function spellings(digits: string): Record<string, string> {
  const groups = digits.match(/.{1,4}/g)!;
  const each = (f: (d: string) => string) => digits.replace(/\d/g, f);
  return {
    plain: digits,
    space: groups.join(' '),
    dash: groups.join('-'),
    dot: groups.join('.'),
    twoSpaces: groups.join('  '),
    nbsp: groups.join('\u00a0'),
    slash: groups.join('/'),
    newline: groups.join('\n'),
    zeroWidth: digits.split('').join('\u200b'),
    fullWidth: each((d) => String.fromCharCode(0xff10 + Number(d))),
    fullWidthSpaced: groups.map((g) => g.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))).join('\u3000'),
    arabicIndic: each((d) => String.fromCharCode(0x0660 + Number(d))),
    mathBold: each((d) => String.fromCodePoint(0x1d7ce + Number(d))),
    softHyphen: groups.join('\u00ad'),
  };
}
