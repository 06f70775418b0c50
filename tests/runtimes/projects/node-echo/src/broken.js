exports.handler = async (event) => {
    return { this is not JavaScript;
};
