/** Tailwind CSS 4 runs as a single PostCSS plugin; it handles imports and vendor prefixes. */
const config = {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};

export default config;
