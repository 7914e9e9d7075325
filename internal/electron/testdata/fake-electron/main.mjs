// The fake app's main module as an ES module: process.mainModule is
// undefined, so the script must reach electron through the inspector's
// command line API require.
setInterval(() => {}, 1 << 30);
console.log('fake app ready');
