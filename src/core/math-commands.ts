/**
 * The TeX commands math may use and still be given as written (math-text.ts): each draws the
 * symbol, letters or structure it names, and none draws its argument as nothing, in a colour, in
 * a box of no size, moved or shrunk out of sight, or defines what another command does. Taken from
 * MathJax's base and AMS mappings (MathJax-src ts/input/tex/base/BaseMappings.ts, ams/), which
 * GitHub's math renders with. Any other command, a macro's name among them (one defined elsewhere
 * on the page may draw nothing), leaves the math out.
 */

const GREEK = [
  'alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa varkappa',
  'lambda mu nu xi omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi',
  'omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega digamma',
];

const SYMBOLS = [
  // Ordinary symbols and letters.
  'aleph beth gimel daleth hbar hslash imath jmath ell wp Re Im partial infty prime emptyset',
  'varnothing nabla top bot angle measuredangle triangle backslash forall exists nexists neg',
  'lnot flat natural sharp clubsuit diamondsuit heartsuit spadesuit surd checkmark circledR',
  'complement Bbbk eth mho Finv Game square blacksquare lozenge blacklozenge bigstar degree',
  // Big operators.
  'sum prod coprod int iint iiint iiiint oint intop smallint bigcap bigcup bigvee bigwedge',
  'biguplus bigotimes bigoplus bigodot bigsqcup',
  // Binary operators.
  'pm mp times div cdot ast star circ bullet oplus ominus otimes oslash odot bigcirc dagger',
  'ddagger cap cup uplus sqcap sqcup vee wedge land lor setminus smallsetminus wr amalg',
  'diamond triangleleft triangleright bigtriangleup bigtriangledown dotplus ltimes rtimes',
  'boxplus boxminus boxtimes boxdot centerdot intercal barwedge veebar',
  // Relations.
  'le leq ge geq lt gt ne neq equiv approx approxeq sim simeq cong propto prec succ preceq',
  'succeq ll gg lll ggg subset supset subseteq supseteq subsetneq supsetneq sqsubset',
  'sqsupset sqsubseteq sqsupseteq in ni notin owns mid nmid parallel nparallel perp vdash',
  'dashv models asymp doteq bowtie smile frown leqslant geqslant lesssim gtrsim lessgtr',
  'gtrless nless ngtr nleq ngeq nsubseteq nsupseteq therefore because coloneqq eqqcolon',
  'trianglelefteq trianglerighteq vartriangleleft vartriangleright',
  // Arrows.
  'to gets leftarrow rightarrow leftrightarrow Leftarrow Rightarrow Leftrightarrow',
  'longleftarrow longrightarrow longleftrightarrow Longleftarrow Longrightarrow',
  'Longleftrightarrow mapsto longmapsto hookleftarrow hookrightarrow uparrow downarrow',
  'updownarrow Uparrow Downarrow Updownarrow nearrow searrow swarrow nwarrow implies',
  'impliedby iff leftharpoonup leftharpoondown rightharpoonup rightharpoondown',
  'rightleftharpoons leftrightarrows rightleftarrows twoheadrightarrow rightarrowtail',
  'leadsto circlearrowleft circlearrowright nrightarrow nleftarrow',
  // Dots and punctuation.
  'ldots cdots vdots ddots dots dotsc dotsb dotsm dotsi dotso ldotp cdotp colon',
  // Delimiters.
  'langle rangle lceil rceil lfloor rfloor lbrace rbrace lbrack rbrack vert Vert lvert rvert',
  'lVert rVert lgroup rgroup',
];

const STRUCTURE = [
  // Fractions, roots, binomials, sizes of delimiters.
  'frac dfrac tfrac cfrac sqrt binom dbinom tbinom over atop choose left right middle big Big',
  'bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr bigm Bigm',
  // Named functions and operators.
  'arcsin arccos arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim',
  'liminf limsup ln log max min Pr sec sin sinh sup tan tanh operatorname bmod pmod mod',
  'limits nolimits',
  // Accents, braces over and under, stacking.
  'hat widehat bar overline underline vec overrightarrow overleftarrow dot ddot tilde',
  'widetilde acute grave breve check mathring overbrace underbrace overset underset',
  'stackrel xrightarrow xleftarrow not boxed',
  // Fonts and text.
  'mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol rm bf',
  'it cal sf tt text textrm textbf textit textsf texttt mbox displaystyle textstyle',
  // Positive spaces, environments and a number for a line.
  'quad qquad thinspace medspace thickspace enspace begin end tag',
];

/** The control words math may use: `\frac`, `\alpha`. */
export const MATH_WORDS: ReadonlySet<string> = new Set(
  [...GREEK, ...SYMBOLS, ...STRUCTURE].join(' ').split(/\s+/).filter(Boolean),
);

/**
 * The control symbols math may use: a line break (not followed by `[`, which may move a line
 * onto another), positive spaces, and characters written as themselves. Not `\!`, a negative
 * space that, repeated, draws one thing over another.
 */
export const MATH_SYMBOLS: ReadonlySet<string> = new Set([
  '\\',
  ',',
  ':',
  ';',
  ' ',
  '>',
  '{',
  '}',
  '|',
  '#',
  '$',
  '%',
  '&',
  '_',
]);
