// The fake app's main module (CommonJS: process.mainModule is set). It says when
// it is loaded (the inspector answers before that) and stays alive until the
// test kills it.
setInterval(() => {}, 1 << 30);
console.log('fake app ready');
