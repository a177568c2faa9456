/* A catalog text's fields filled (arena/plural.py's fill, in the browser): `{name}` is
   the field's value, `{name:one|other}` the word its count takes in English ("1 match",
   "2 matches"); a field not given is left as written. table.js, seat.js and site.js
   fill the catalogs' texts with it. */
(function () {
  "use strict";

  const FIELD = /\{(\w+)(?::([^{}|]*)\|([^{}]*))?\}/g;

  function fill(text, fields) {
    return String(text).replace(FIELD, (whole, name, one, other) => {
      if (!fields || !(name in fields)) {
        return whole;
      }
      if (one === undefined) {
        return String(fields[name]);
      }
      return Math.abs(Number(String(fields[name]).replace(/,/g, ""))) === 1 ? one : other;
    });
  }

  window.arenaWords = Object.freeze({ fill });
})();
